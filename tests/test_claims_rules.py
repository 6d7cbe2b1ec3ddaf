def test_name_deciding_reading_notes_only_rows_whose_verdict_changes():
    from routelab.claims import Verdict, name_deciding_reading

    rows = [
        {"claim": "a", "verdict": Verdict("holds", "r")},
        {"claim": "b", "verdict": Verdict("fails", "r"), "note": "seeds 0-2"},
        {"claim": "c", "verdict": Verdict("holds", "r")},
    ]
    alt = [{"claim": "a", "verdict": Verdict("holds", "r")},
           {"claim": "b", "verdict": Verdict("inconclusive", "r")}]  # fmt: skip
    out = name_deciding_reading(rows, alt, "Dmove strict", "Dmove >= as printed")
    assert out[0] == rows[0] and out[2] == rows[2]  # agrees; not in the alternative
    assert out[1]["note"] == (
        "seeds 0-2; the reading 'Dmove strict' decides this row: under the alternative "
        "(Dmove >= as printed) it reads inconclusive"
    )
    assert out[1]["verdict"] == rows[1]["verdict"] and "note" not in rows[0]
