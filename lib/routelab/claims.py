"""Verdicts for the claims tables: how one measured number is judged against the paper's.

Every notebook ends with a claims table (:class:`routelab.report.NotebookReport`); each row
states the paper's claim, where the paper makes it, the paper's number, ours, a **verdict**
and the **rule** that produced it. The verdicts are a fixed vocabulary:

============== ==========================================================================
verdict        meaning
============== ==========================================================================
holds          the paper's statement holds on our data at the paper's stated size, within
               the tolerance the rule declares
direction only the effect points the paper's way but its size is outside the tolerance
               (e.g. the paper says 12.1x, we measure 1.28x)
partly         it holds on some of the cases the claim covers and not on others
fails          it does not hold (or the opposite holds); the note says why
inconclusive   repeated measurements cannot decide: their intervals overlap (or a paired
               ratio's interval includes 1), so noise, not the method, would pick the
               verdict
not comparable our data or setting cannot test it (the note says what is missing)
============== ==========================================================================

**Noise decides nothing.** A claim about timings rests on repeated measurements (at least
:data:`MIN_REPEATS`, declared in the notebook's profile) and their t intervals
(:func:`t_interval`, with the t quantile for the degrees of freedom they have): a direction
holds only where the paired ratio's interval lies on the paper's side of 1
(:func:`direction_measured`), an ordering only where the intervals of each adjacent pair
separate (:func:`ordering_measured`); otherwise the verdict is ``inconclusive``.

Each rule below returns a :class:`Verdict` carrying the verdict and a one-line statement of
how it was computed, including its tolerance. Tolerances are arguments, so a notebook
declares them in code *before* it measures anything (put them in the notebook's claims
module as constants, never tuned after the run).

Rows of ``kind="check"`` only check our own configuration (e.g. "lengths follow Zipf(0.5)",
which we drew ourselves); they are listed apart from the paper's claims.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

VERDICTS = ("holds", "direction only", "partly", "fails", "inconclusive", "not comparable")
#: repeated measurements a timing claim needs before its interval can decide anything
MIN_REPEATS = 3
#: confidence of the intervals of timing claims
CONFIDENCE = 0.95
#: a row's kind: the paper's claim, a check of our own configuration (true by construction
#: or only about our setup), or a row about our own extension beyond the paper (shown with
#: its verdict, never counted in a paper's tally)
KINDS = ("claim", "check", "beyond")


@dataclass(frozen=True)
class Verdict:
    """A verdict from :data:`VERDICTS` and the rule that produced it; ``repeats`` is the
    number of repeated measurements behind it (0: the rule judged single values)."""

    verdict: str
    rule: str
    repeats: int = 0

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if not self.rule.strip():
            raise ValueError("a verdict needs the rule that produced it")

    @property
    def holds(self) -> bool:
        return self.verdict == "holds"


def claim_row(
    claim: str,
    paper: str,
    paper_value: str,
    measured: str,
    verdict: Verdict,
    note: str = "",
    kind: str = "claim",
    timing: bool = False,
) -> dict[str, Any]:
    """One claims-table row as the keyword arguments of
    :meth:`routelab.report.NotebookReport.claim` (``report.claim(**row)``), so a notebook's
    claims module can build and test its rows without a report. ``timing=True`` marks a row
    judged on measured times: its verdict must rest on at least :data:`MIN_REPEATS`
    repeats (``verdict.repeats``) unless it is "not comparable"."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return {
        "claim": claim,
        "paper": paper,
        "paper_value": paper_value,
        "measured": measured,
        "verdict": verdict,
        "note": note,
        "kind": kind,
        "timing": timing,
    }


@dataclass(frozen=True)
class Declaration:
    """One claims-table row declared once, as data: the lab's ``claims.toml`` holds a table
    per row (its key) with the paper's statement (``claim``), where the paper makes it
    (``paper``), the paper's number or words (``paper_value``), what we measure
    (``measures``), the rule that grades it (``rule``, in words; the :class:`Verdict` states
    it with its numbers), its ``kind`` (:data:`KINDS`), whether it is judged on measured
    times (``timing``) and a ``note`` that holds whatever a run measures (a run's own note
    replaces it). The lab's code only measures: :meth:`row` puts the measured text,
    the verdict and the note beside the declared fields. A ``{name}`` in a declared text is
    filled from :meth:`row`'s keyword arguments (a row declared once for every system or
    every N); a slot left unfilled is an error, never a ``{name}`` in the table (a literal
    brace is written twice)."""

    key: str
    claim: str
    paper: str
    paper_value: str = ""
    measures: str = ""
    rule: str = ""
    kind: str = "claim"
    timing: bool = False
    note: str = ""
    texts: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.key!r}: kind must be one of {KINDS}, got {self.kind!r}")
        for name in ("claim", "paper"):
            if not str(getattr(self, name)).strip():
                raise ValueError(f"claim {self.key!r}: {name} is empty")

    def row(
        self, measured: str, verdict: Verdict, /, note: str | None = None, **slots: Any
    ) -> dict[str, Any]:
        """The row (:func:`claim_row`'s shape), the declared texts' ``{name}`` slots filled
        from ``slots``; ``note`` ``None``: the declared note."""

        def fill(text: str) -> str:
            return text.format(**slots)

        return claim_row(
            fill(self.claim), fill(self.paper), fill(self.paper_value), measured, verdict,
            fill(self.note) if note is None else note, self.kind, self.timing,
        )  # fmt: skip

    def graded(
        self,
        verdict: Verdict,
        /,
        note: str | None = None,
        *,
        measured: str | None = None,
        **slots: Any,
    ) -> dict[str, Any]:
        """:meth:`row` with the measured text declared as the text ``measured`` (unless
        ``measured`` is given), it and the declared fields filled from ``slots``."""
        text = self.text("measured", **slots) if measured is None else measured
        return self.row(text, verdict, note, **slots)

    def text(self, name: str, /, **slots: Any) -> str:
        """The row's declared text ``name`` (its ``[<key>.texts]`` table: the measured text
        or a note, written once with ``{slot}`` places), filled from ``slots``; an unknown
        name or an unfilled slot is an error naming the row."""
        if name not in self.texts:
            raise KeyError(f"claim {self.key!r} declares no text {name!r}: {sorted(self.texts)}")
        try:
            return self.texts[name].format(**slots)
        except KeyError as e:
            raise KeyError(f"claim {self.key!r}, text {name!r}: slot {e} not given") from None

    def unmeasured(self, reason: str, measured: str = "not measured", note: str | None = None,
                   **slots: Any) -> dict[str, Any]:  # fmt: skip
        """The row as "not comparable" with ``reason`` (what this run lacks)."""
        return self.row(measured, not_comparable(reason), note, **slots)


def declarations(module_file: str) -> dict[str, Declaration]:
    """The rows declared in the ``claims.toml`` beside ``module_file`` (a lab's claims
    module passes its ``__file__``), by key; each table needs ``claim`` and ``paper`` and
    may set the other fields of :class:`Declaration` (an unknown field is an error naming
    the file and the row)."""
    import tomllib
    from dataclasses import fields
    from pathlib import Path

    path = Path(module_file).with_name("claims.toml")
    with path.open("rb") as f:
        table = tomllib.load(f)
    types = {f.name: {"timing": bool, "texts": dict}.get(f.name, str) for f in fields(Declaration)}
    known = set(types) - {"key"}
    out = {}
    for key, spec in table.items():
        if not isinstance(spec, dict):
            raise ValueError(f"{path}: [{key}] must be a table of a row's fields")
        unknown = set(spec) - known
        if unknown:
            raise ValueError(f"{path}: [{key}] has unknown fields {sorted(unknown)}")
        missing = {"claim", "paper"} - set(spec)
        if missing:
            raise ValueError(f"{path}: [{key}] lacks {sorted(missing)}")
        wrong = sorted(k for k, v in spec.items() if not isinstance(v, types[k]))
        texts = spec.get("texts", {}) if isinstance(spec.get("texts"), dict) else {}
        wrong += [f"texts.{k}" for k, v in texts.items() if not isinstance(v, str)]
        if wrong:
            raise ValueError(f"{path}: [{key}] has fields of the wrong type {wrong} (timing is "
                             "true or false, texts a table of strings, every other field a string)")  # fmt: skip
        out[key] = Declaration(key=key, **spec)
    return out


def declared_rows() -> list[dict[str, Any]]:
    """Every row declared in the library (each lab's ``claims.toml``), in file order: the
    lab (``s3tm.lab.routing``), the row's key and the fields of :class:`Declaration`; what
    ``routelab claims --declared`` prints, before anything is run."""
    from dataclasses import asdict
    from pathlib import Path

    root = Path(__file__).parent
    out = []
    for path in sorted(root.rglob("claims.toml")):
        lab = ".".join(path.parent.relative_to(root).parts)
        out += [{"lab": lab, **asdict(d)} for d in declarations(str(path)).values()]
    return out


def _fmt(x: float) -> str:
    """A number in a rule: three significant digits, from 1,000 up in full with thousands
    separators (1,000; 112,000) rather than in scientific form (1e+03; 1.12e+05)."""
    v = float(x)
    if math.isfinite(v) and 1_000 <= abs(v) < 1e15:
        return f"{float(f'{v:.3g}'):,.0f}"
    return f"{v:.3g}"


def _nan(*values: float | None) -> bool:
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def not_comparable(reason: str) -> Verdict:
    """Our data or setting cannot test the claim; ``reason`` says what is missing."""
    return Verdict("not comparable", reason)


#: the note of a headline claim we do not measure yet (:func:`unmeasured_rows`)
UNMEASURED_NOTE = "listed so the table counts the paper's claims, not only what we built"


def unmeasured_rows(
    rows: Mapping[str, Declaration], family: str, reason: str
) -> list[dict[str, Any]]:
    """The declared rows of ``family`` (keys ``"<family> <member>"``): a paper's headline
    claims we do not measure (here), each "not comparable" with ``reason``, so a claims table
    counts the paper's claims, not only what was built."""
    return [
        d.unmeasured(reason, note=UNMEASURED_NOTE)
        for key, d in rows.items()
        if key.split()[0] == family
    ]


def outside_regime(rows: Iterable[dict[str, Any]], reason: str) -> list[dict[str, Any]]:
    """``rows`` as they are when ``reason`` is empty; otherwise every timing row
    (``timing=True``) that measured something becomes "not comparable" with ``reason`` and
    the verdict it measured, for timings taken where the paper never measured (too small a
    size, idle workers) and where noise, not the method, would decide."""
    out = []
    for row in rows:
        v = row["verdict"]
        if reason and row.get("timing") and v.verdict != "not comparable":
            row = {**row, "verdict": not_comparable(
                f"{reason} (measured here: {v.verdict}; {v.rule})")}  # fmt: skip
        out.append(row)
    return out


def name_deciding_reading(
    rows: Sequence[dict[str, Any]],
    alternative_rows: Sequence[dict[str, Any]],
    reading: str,
    alternative: str,
) -> list[dict[str, Any]]:
    """``rows`` with the reading named where it decides a verdict: ``alternative_rows`` are
    the same claims graded on the run under the reading's alternative (``alternative``
    says which, e.g. "updates per posting on the Q3 sets"); a row whose verdict differs
    gets a note naming the reading (as READINGS.md titles it) and the other verdict. Rows
    agree by their ``claim`` text; a claim missing from the alternative is left as is."""
    other = {r["claim"]: r["verdict"] for r in alternative_rows}
    out = []
    for row in rows:
        alt = other.get(row["claim"])
        if alt is not None and alt.verdict != row["verdict"].verdict:
            note = row.get("note", "")
            row = {**row, "note": (note + "; " if note else "") + (
                f"the reading '{reading}' decides this row: under the alternative "
                f"({alternative}) it reads {alt.verdict}")}  # fmt: skip
        out.append(row)
    return out


def within_factor(measured: float, paper: float, factor: float, *, neutral: float = 1.0) -> Verdict:
    """A multiplicative effect the paper sizes (e.g. "2.56x", "12.14x faster").

    holds if ``paper / factor <= measured <= paper * factor``; direction only if
    ``measured`` is on the same side of ``neutral`` (no effect, 1 for ratios) as ``paper``
    but outside that band; fails otherwise.
    """
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    if paper <= 0:
        raise ValueError(f"paper value must be positive for a factor rule, got {paper}")
    rule = (
        f"holds if within {factor:g}x of the paper's {_fmt(paper)} "
        f"([{_fmt(paper / factor)}, {_fmt(paper * factor)}]); direction only if on the "
        f"paper's side of {neutral:g}"
    )
    if _nan(measured):
        return not_comparable(rule + "; nothing measured")
    if paper / factor <= measured <= paper * factor:
        return Verdict("holds", rule)
    same_side = (measured - neutral) * (paper - neutral) > 0
    return Verdict("direction only" if same_side else "fails", rule)


def within_tolerance(
    measured: float, paper: float, tolerance: float, *, neutral: float | None = None
) -> Verdict:
    """An additive quantity the paper sizes (e.g. "about 25 %", "0.5 s").

    holds if ``|measured - paper| <= tolerance``; with ``neutral`` (the no-effect value),
    direction only if ``measured`` lies on the paper's side of it; fails otherwise.
    """
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    rule = f"holds if within +-{_fmt(tolerance)} of the paper's {_fmt(paper)}"
    if neutral is not None:
        rule += f"; direction only if on the paper's side of {_fmt(neutral)}"
    if _nan(measured):
        return not_comparable(rule + "; nothing measured")
    if abs(measured - paper) <= tolerance:
        return Verdict("holds", rule)
    if neutral is not None and (measured - neutral) * (paper - neutral) > 0:
        return Verdict("direction only", rule)
    return Verdict("fails", rule)


def at_least(measured: float, bound: float, *, what: str = "") -> Verdict:
    """A lower bound the paper states ("at least 20x", "up to 1,000 events/s")."""
    rule = f"holds if {what + ' ' if what else ''}>= {_fmt(bound)}"
    if _nan(measured):
        return not_comparable(rule + "; nothing measured")
    return Verdict("holds" if measured >= bound else "fails", rule)


def at_most(measured: float, bound: float, *, what: str = "") -> Verdict:
    """An upper bound the paper states ("within 5 %", "no more than 2 tables")."""
    rule = f"holds if {what + ' ' if what else ''}<= {_fmt(bound)}"
    if _nan(measured):
        return not_comparable(rule + "; nothing measured")
    return Verdict("holds" if measured <= bound else "fails", rule)


def direction(measured: float, *, neutral: float, expected: str) -> Verdict:
    """A claim the paper states as a direction only ("faster", "grows", "less memory").

    ``expected`` is ``"above"`` or ``"below"`` ``neutral`` (for a ratio ours/theirs,
    neutral = 1). With no size in the paper, the right direction is a full "holds".
    """
    if expected not in ("above", "below"):
        raise ValueError(f"expected must be 'above' or 'below', got {expected!r}")
    rule = f"holds if {expected} {_fmt(neutral)} (the paper gives a direction, no size)"
    if _nan(measured):
        return not_comparable(rule + "; nothing measured")
    ok = measured > neutral if expected == "above" else measured < neutral
    return Verdict("holds" if ok else "fails", rule)


def ordering(
    values: Mapping[str, float], order: Sequence[str], *, partly_at: float = 0.5
) -> Verdict:
    """A ranking the paper states, ``order`` from smallest to largest value.

    Each adjacent pair of ``order`` is checked (strictly smaller); holds if all are in
    order, partly if at least ``partly_at`` of them are, fails otherwise.
    """
    missing = [name for name in order if name not in values or _nan(values[name])]
    rule = f"holds if {' < '.join(order)} for every adjacent pair; partly if >= {partly_at:.0%}"
    if missing:
        return not_comparable(rule + f"; not measured: {', '.join(missing)}")
    pairs = list(zip(order, order[1:], strict=False))
    good = sum(values[a] < values[b] for a, b in pairs)
    return share(good, len(pairs), partly_at=partly_at, rule=rule)


def share(n_ok: int, n_total: int, *, partly_at: float = 0.5, rule: str | None = None) -> Verdict:
    """A claim over several cases (workloads, N, datasets): holds if it holds on all,
    partly if on at least ``partly_at`` of them (and at least one), fails otherwise."""
    if n_total <= 0:
        return not_comparable(rule or "no cases to check")
    rule = rule or f"holds if on all cases, partly if on >= {partly_at:.0%}"
    rule = f"{rule} ({n_ok}/{n_total})"
    if n_ok == n_total:
        return Verdict("holds", rule)
    if n_ok >= max(1, math.ceil(partly_at * n_total)):
        return Verdict("partly", rule)
    return Verdict("fails", rule)


def equivalent(
    estimate: float, ci_low: float, ci_high: float, margin: float, *, repeats: int = 0
) -> Verdict:
    """Absence of an effect ("no trend", "independent of N", "about the same").

    A failure to reject is not evidence of absence: this holds only if the whole confidence
    interval lies inside ``(-margin, margin)``, a margin declared before looking. If the
    interval lies entirely outside, the effect is there: fails. If it straddles the margin
    the data cannot show absence: inconclusive. ``repeats``: the observations behind the
    interval.
    """
    if margin <= 0:
        raise ValueError(f"margin must be positive, got {margin}")
    if ci_low > ci_high:
        raise ValueError(f"empty interval [{ci_low}, {ci_high}]")
    rule = (
        f"holds if the confidence interval [{_fmt(ci_low)}, {_fmt(ci_high)}] of the effect "
        f"(estimate {_fmt(estimate)}) lies inside +-{_fmt(margin)}"
    )
    if _nan(estimate, ci_low, ci_high):
        return not_comparable(rule + "; nothing measured")
    if -margin < ci_low and ci_high < margin:
        return Verdict("holds", rule, repeats)
    if ci_low >= margin or ci_high <= -margin:
        return Verdict("fails", rule + "; the effect is outside the margin", repeats)
    return Verdict("inconclusive", rule + "; the interval crosses the margin", repeats)


def equivalent_measured(
    numerator: Sequence[float] | Any,
    denominator: Sequence[float] | Any,
    factor: float,
    *,
    min_repeats: int = MIN_REPEATS,
    confidence: float = CONFIDENCE,
) -> Verdict:
    """:func:`equivalent` on paired repeated measurements ("does not change with N"): the
    paired ratio ``numerator / denominator`` (:func:`ratio_interval`) against the margin
    ``factor`` either way (the log interval inside ``+-ln factor``). Holds if the interval
    lies within ``[1 / factor, factor]``, fails if it lies wholly outside it, inconclusive
    if it straddles an edge (with the repeats that would decide at the measured spread).
    Fewer than ``min_repeats`` pairs: not comparable."""
    if factor <= 1:
        raise ValueError(f"factor must be > 1, got {factor}")
    n = int(sum(1 for a, b in zip(numerator, denominator, strict=True) if a > 0 and b > 0))
    rule = (f"holds if the {confidence:.0%} interval of the paired ratio lies within "
            f"{factor:g}x either way ([{_fmt(1 / factor)}, {_fmt(factor)}], >= {min_repeats} "
            "repeats)")  # fmt: skip
    if n < min_repeats:
        return not_comparable(f"{rule}; only {n} paired repeats")
    ratio, low, high = ratio_interval(numerator, denominator, confidence=confidence)
    rule += f"; ratio {_fmt(ratio)} [{_fmt(low)}, {_fmt(high)}] over {n} repeats"
    margin = math.log(factor)
    verdict = equivalent(math.log(ratio), math.log(low), math.log(high), margin).verdict
    if verdict == "fails":
        rule += "; the change is outside the margin"
    elif verdict == "inconclusive":
        rule += "; the interval crosses the margin" + _more_repeats(
            _log_ratios(numerator, denominator), [-margin, margin]
        )
    return Verdict(verdict, rule, n)


def state_once(rules: Sequence[str]) -> str:
    """Several parts' rules as one text, each rule stated once: parts whose rules open with
    the same clauses (clauses are separated by "; ") share them, stated once with the
    number of parts, then what differs per part ("..., for each of 4 parts: part 1: ratio
    0.8 [0.6, 1.1] over 3 repeats | part 2: ..."); identical rules read "... (4 parts)"."""
    groups: dict[str, list[tuple[int, list[str]]]] = {}
    for number, rule in enumerate(rules, start=1):
        clauses = [c.strip() for c in str(rule).split("; ")]
        groups.setdefault(clauses[0], []).append((number, clauses))
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append("; ".join(members[0][1]))
            continue
        common = members[0][1]
        for _, clauses in members[1:]:
            k = 0
            while k < min(len(common), len(clauses)) and common[k] == clauses[k]:
                k += 1
            common = common[:k]
        head = "; ".join(common)
        rests = [clauses[len(common) :] for _, clauses in members]
        if not any(rests):
            out.append(f"{head} ({len(members)} parts)")
            continue
        end = 0  # clauses every part ends with, stated once after the parts
        while all(len(r) > end for r in rests) and len({r[-1 - end] for r in rests}) == 1:
            end += 1
        tails = ["; ".join(r[: len(r) - end]) or "as stated" for r in rests]
        each = " | ".join(f"part {n}: {t}" for (n, _), t in zip(members, tails, strict=True))
        text = f"{head}, for each of {len(members)} parts: {each}"
        if end:
            text += f"; in every part: {'; '.join(rests[0][len(rests[0]) - end :])}"
        out.append(text)
    return "; ".join(out)


def combine(verdicts: Sequence[Verdict], *, how: str = "all") -> Verdict:
    """One verdict from several parts of one claim (e.g. "A saves memory and so does B").

    ``how="all"``: holds if every part holds; a part that is only "direction only" makes the
    whole "direction only" (if no part fails); some parts failing makes it "partly"; all
    failing "fails". An ``inconclusive`` part makes the whole inconclusive unless another
    part fails (then "partly", or "fails" if every decided part fails). Parts that are not
    comparable are not judged but are shown: the rule names them ("not comparable: ...").
    Only parts of the paper's claim belong here: a part that checks our own configuration
    (it cannot fail) is a separate row of kind "check", never a part. The whole rests on the
    fewest repeats of its judged parts.
    """
    if how != "all":
        raise ValueError(f"unknown combination {how!r}")
    if not verdicts:
        raise ValueError("nothing to combine")
    judged_parts = [v for v in verdicts if v.verdict != "not comparable"]
    rule = state_once(
        [v.rule if v.verdict != "not comparable" else f"not comparable: {v.rule}" for v in verdicts]
    )
    judged = [v.verdict for v in judged_parts]
    if not judged:
        return not_comparable(rule)
    repeats = min(v.repeats for v in judged_parts)
    decided = [v for v in judged if v != "inconclusive"]
    if decided and all(v == "fails" for v in decided):
        verdict = "fails"
    elif "fails" in decided or "partly" in decided:
        verdict = "partly"
    elif len(decided) < len(judged):
        verdict = "inconclusive"
    elif all(v == "holds" for v in judged):
        verdict = "holds"
    else:
        verdict = "direction only"
    return Verdict(verdict, rule, repeats)


def t_interval(
    values: Sequence[float] | Any, *, confidence: float = CONFIDENCE
) -> tuple[float, float, float]:
    """(mean, low, high): the t interval of the mean of repeated measurements, with the t
    quantile for their ``n - 1`` degrees of freedom (3 repeats: 4.30, not 1.96). Fewer than
    two finite values give an interval of NaN."""
    import numpy as np
    from scipy import stats

    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if len(x) < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + confidence / 2, df=len(x) - 1)) * float(x.std(ddof=1))
    half /= math.sqrt(len(x))
    return mean, mean - half, mean + half


def repeats_to_decide(
    log_ratios: Sequence[float] | Any,
    edges: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    limit: int = 1000,
) -> int | None:
    """How many paired repeats an inconclusive interval would need to decide, at the spread
    it measured: the smallest ``n`` whose t interval around the measured mean log ratio (the
    measured standard deviation, ``n - 1`` degrees of freedom) clears every edge of
    ``edges`` (log scale) the mean is not on. ``None`` where the mean sits on an edge or
    more than ``limit`` repeats would be needed."""
    import numpy as np

    x = np.asarray(log_ratios, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) < 2:
        return None
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    return _repeats_for(mean, sd, len(x), edges, confidence=confidence, limit=limit)


def _repeats_for(
    mean: float, sd: float, n0: int, edges: Sequence[float], *, confidence: float, limit: int
) -> int | None:
    """The smallest ``n >= n0`` whose t interval (``sd``, ``n - 1`` degrees of freedom)
    around ``mean`` clears every edge (:func:`repeats_to_decide`)."""
    from scipy import stats

    gap = min(abs(mean - e) for e in edges)
    if gap <= 0 or not math.isfinite(sd):
        return None
    if sd == 0:
        return n0
    for n in range(max(2, n0), limit + 1):
        if float(stats.t.ppf(0.5 + confidence / 2, df=n - 1)) * sd / math.sqrt(n) < gap:
            return n
    return None


def _more_repeats(log_ratios: Any, edges: Sequence[float]) -> str:
    """The note an inconclusive rule adds: the repeats that would decide it."""
    n = repeats_to_decide(log_ratios, edges)
    return (f"; about {n} repeats would decide at this spread" if n
            else "; no number of repeats within 1,000 would decide at this spread")  # fmt: skip


def ratio_interval(
    numerator: Sequence[float] | Any,
    denominator: Sequence[float] | Any,
    *,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """(ratio, low, high) of paired repeated measurements (repeat i of both sides under the
    same seed): the geometric mean of the per-repeat ratios and its t interval, computed on
    the log ratios."""
    import numpy as np

    a = np.asarray(numerator, dtype=np.float64)
    b = np.asarray(denominator, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired measurements differ in number: {a.shape} vs {b.shape}")
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    mean, low, high = t_interval(np.log(a[ok] / b[ok]), confidence=confidence)
    return math.exp(mean), math.exp(low), math.exp(high)


def block_bootstrap_ratio(
    numerator: Sequence[float] | Any,
    denominator: Sequence[float] | Any,
    *,
    block: int = 3,
    n_boot: int = 4000,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(ratio, low, high) of a paired series whose terms are **not** independent (the
    consecutive windows of one stream): the geometric mean of the per-term ratios and its
    moving-block bootstrap percentile interval (blocks of ``block`` consecutive terms drawn
    with replacement, so the dependence within a block is kept; seeded)."""
    import numpy as np

    a = np.asarray(numerator, dtype=np.float64)
    b = np.asarray(denominator, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired measurements differ in number: {a.shape} vs {b.shape}")
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    x = np.log(a[ok] / b[ok])
    n = len(x)
    if n < 2:
        return (math.exp(float(x.mean())) if n else float("nan"),) + (float("nan"),) * 2
    k = max(1, min(int(block), n))
    starts = np.arange(n - k + 1)
    rng = np.random.default_rng(seed)
    n_blocks = -(-n // k)
    picks = rng.choice(starts, size=(n_boot, n_blocks))
    idx = (picks[:, :, None] + np.arange(k)[None, None, :]).reshape(n_boot, -1)[:, :n]
    means = x[idx].mean(axis=1)
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return math.exp(float(x.mean())), math.exp(float(lo)), math.exp(float(hi))


def direction_block_bootstrap(
    numerator: Sequence[float] | Any,
    denominator: Sequence[float] | Any,
    *,
    expected: str,
    margin: float = 0.0,
    block: int = 3,
    min_terms: int = 6,
    seed: int = 0,
) -> Verdict:
    """:func:`direction_measured` for one stream's consecutive windows: the interval is a
    moving-block bootstrap (:func:`block_bootstrap_ratio`), not a t interval that would take
    the windows as independent repeats. Fewer than ``min_terms`` paired windows cannot
    decide (not comparable)."""
    import numpy as np

    if expected not in ("above", "below"):
        raise ValueError(f"expected must be 'above' or 'below', got {expected!r}")
    edge = 1 + margin if expected == "above" else 1 / (1 + margin)
    a, b = np.asarray(numerator, float), np.asarray(denominator, float)
    n = int(np.sum(np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)))
    rule = (f"holds if the {CONFIDENCE:.0%} block-bootstrap interval (blocks of {block} "
            f"windows) of the paired ratio lies {expected} {_fmt(edge)} (>= {min_terms} "
            "windows)")  # fmt: skip
    if n < min_terms:
        return not_comparable(f"{rule}; only {n} paired windows")
    r, lo, hi = block_bootstrap_ratio(a, b, block=block, seed=seed)
    rule += f"; ratio {_fmt(r)} [{_fmt(lo)}, {_fmt(hi)}] over {n} windows"
    side = _side(lo, hi, edge, expected)
    if side:
        return Verdict(side, rule, n)
    return Verdict("inconclusive", rule + f"; the interval includes {_fmt(edge)}", n)


def _side(low: float, high: float, edge: float, expected: str) -> str | None:
    """ "holds" if the interval lies wholly on the ``expected`` side of ``edge``, "fails" if
    wholly on the other, None if it includes the edge."""
    if low > edge if expected == "above" else high < edge:
        return "holds"
    if high < edge if expected == "above" else low > edge:
        return "fails"
    return None


def direction_measured(
    numerator: Sequence[float] | Any,
    denominator: Sequence[float] | Any,
    *,
    expected: str,
    min_repeats: int = MIN_REPEATS,
    confidence: float = CONFIDENCE,
    margin: float = 0.0,
) -> Verdict:
    """A direction the paper states ("A is faster than B") on paired repeated timings: the
    ratio ``numerator / denominator`` is expected ``"above"`` or ``"below"`` 1. Holds if the
    ratio's interval lies wholly on that side, fails if wholly on the other, inconclusive if
    it includes 1; fewer than ``min_repeats`` pairs cannot decide (not comparable).

    ``margin`` > 0 is the smallest effect the claim is about: the threshold moves from 1 to
    ``1 + margin`` (``1 / (1 + margin)`` below), so an interval wholly short of it fails
    (any difference is smaller than the claim's), and only an interval straddling the
    threshold is inconclusive. A true difference near 0 then fails in every run instead of
    drifting between "fails" and "inconclusive" with the noise."""
    if expected not in ("above", "below"):
        raise ValueError(f"expected must be 'above' or 'below', got {expected!r}")
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    edge = 1 + margin if expected == "above" else 1 / (1 + margin)
    n = int(sum(1 for a, b in zip(numerator, denominator, strict=True) if a > 0 and b > 0))
    rule = (
        f"holds if the {confidence:.0%} interval of the paired ratio lies {expected} "
        f"{_fmt(edge)} (>= {min_repeats} repeats)"
    )
    if n < min_repeats:
        return not_comparable(f"{rule}; only {n} paired repeats")
    ratio, low, high = ratio_interval(numerator, denominator, confidence=confidence)
    rule += f"; ratio {_fmt(ratio)} [{_fmt(low)}, {_fmt(high)}] over {n} repeats"
    side = _side(low, high, edge, expected)
    if side:
        return Verdict(side, rule, n)
    if high - low <= 1e-12 * max(1.0, abs(ratio)):
        # every repeat gave the same ratio: no noise is left, the value itself decides
        ok = ratio > edge if expected == "above" else ratio < edge
        return Verdict("holds" if ok else "fails",
                       rule + "; every repeat gave this same ratio (no spread)", n)  # fmt: skip
    return Verdict(
        "inconclusive",
        rule
        + f"; the interval includes {_fmt(edge)}"
        + _more_repeats(_log_ratios(numerator, denominator), [math.log(edge)]),
        n,
    )


def _log_ratios(numerator: Any, denominator: Any) -> Any:
    import numpy as np

    a, b = np.asarray(numerator, dtype=np.float64), np.asarray(denominator, dtype=np.float64)
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    return np.log(a[ok] / b[ok])


def within_factor_measured(
    numerator: Sequence[float] | Any,
    denominator: Sequence[float] | Any,
    paper: float,
    factor: float,
    *,
    min_repeats: int = MIN_REPEATS,
    confidence: float = CONFIDENCE,
) -> Verdict:
    """:func:`within_factor` on paired repeated timings: the paired ratio
    ``numerator / denominator`` and its interval (:func:`ratio_interval`) against the band
    ``[paper / factor, paper * factor]``. Holds if the interval lies inside the band;
    direction only if it lies outside the band but on the paper's side of 1; fails if it lies
    wholly on the other side of 1, or wholly outside the band without being on the paper's
    side (the paper's size is excluded and its direction not shown); inconclusive if it
    straddles an edge of the band, or 1 inside the band (noise would pick the verdict).
    Fewer than ``min_repeats`` pairs: not comparable."""
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    if paper <= 0 or paper == 1:
        raise ValueError(f"paper value must be positive and not 1 for a factor rule, got {paper}")
    lo_band, hi_band = paper / factor, paper * factor
    n = int(sum(1 for a, b in zip(numerator, denominator, strict=True) if a > 0 and b > 0))
    rule = (
        f"holds if the {confidence:.0%} interval of the paired ratio lies within {factor:g}x "
        f"of the paper's {_fmt(paper)} ([{_fmt(lo_band)}, {_fmt(hi_band)}]); direction only "
        f"if it lies outside but on the paper's side of 1 (>= {min_repeats} repeats)"
    )
    if n < min_repeats:
        return not_comparable(f"{rule}; only {n} paired repeats")
    ratio, low, high = ratio_interval(numerator, denominator, confidence=confidence)
    rule += f"; ratio {_fmt(ratio)} [{_fmt(low)}, {_fmt(high)}] over {n} repeats"
    if lo_band <= low and high <= hi_band:
        return Verdict("holds", rule, n)
    paper_side = (low > 1 and high > 1) if paper > 1 else (low < 1 and high < 1)
    outside = high < lo_band or low > hi_band
    if paper_side and outside:
        return Verdict("direction only", rule, n)
    wrong_side = (high < 1) if paper > 1 else (low > 1)
    if wrong_side or outside:
        return Verdict("fails", rule, n)
    return Verdict(
        "inconclusive",
        rule + "; the interval straddles an edge of the band"
        + _more_repeats(_log_ratios(numerator, denominator),
                        [math.log(lo_band), math.log(hi_band), 0.0]),
        n,
    )  # fmt: skip


def within_tolerance_interval(
    estimate: float,
    low: float,
    high: float,
    paper: float,
    tolerance: float,
    *,
    neutral: float | None = None,
    repeats: int = 0,
) -> Verdict:
    """:func:`within_tolerance` on an interval (e.g. a fitted slope's): holds if ``[low,
    high]`` lies inside ``paper +- tolerance``; direction only if it lies wholly outside the
    band but on the paper's side of ``neutral``; fails if it lies wholly outside the band
    (and, with ``neutral``, wholly on its other side); inconclusive if it straddles an edge."""
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    rule = (
        f"holds if the interval [{_fmt(low)}, {_fmt(high)}] (estimate {_fmt(estimate)}) lies "
        f"within +-{_fmt(tolerance)} of the paper's {_fmt(paper)}"
    )
    if neutral is not None:
        rule += f"; direction only if outside but on the paper's side of {_fmt(neutral)}"
    if _nan(estimate, low, high):
        return not_comparable(rule + "; nothing measured")
    if paper - tolerance <= low and high <= paper + tolerance:
        return Verdict("holds", rule, repeats)
    outside = high < paper - tolerance or low > paper + tolerance
    if neutral is not None:
        side = (paper - neutral) > 0
        paper_side = (low > neutral) if side else (high < neutral)
        wrong_side = (high < neutral) if side else (low > neutral)
        if outside and paper_side:
            return Verdict("direction only", rule, repeats)
        if wrong_side:
            return Verdict("fails", rule, repeats)
    elif outside:
        return Verdict("fails", rule, repeats)
    return Verdict("inconclusive", rule + "; the interval straddles an edge", repeats)


def beyond_measured(
    estimate: float,
    low: float,
    high: float,
    edge: float,
    *,
    expected: str,
    what: str,
    repeats: int,
    min_repeats: int = MIN_REPEATS,
    confidence: float = CONFIDENCE,
) -> Verdict:
    """A measured quantity's interval against a threshold the claim names ("the share is
    above one half", "the ratio stays below 1.25"): holds if ``[low, high]`` lies wholly
    ``expected`` (``"above"`` or ``"below"``) ``edge``, fails if wholly on the other side,
    inconclusive if it includes ``edge``; fewer than ``min_repeats`` repeats: not
    comparable. ``what`` names the quantity in the rule."""
    if expected not in ("above", "below"):
        raise ValueError(f"expected must be 'above' or 'below', got {expected!r}")
    rule = (
        f"holds if the {confidence:.0%} interval of {what} lies {expected} {_fmt(edge)}; "
        f"{_fmt(estimate)} [{_fmt(low)}, {_fmt(high)}] over {repeats} repeats"
    )
    if repeats < min_repeats:
        return not_comparable(f"{rule}; fewer than {min_repeats} repeats")
    right = low > edge if expected == "above" else high < edge
    wrong = high < edge if expected == "above" else low > edge
    if right:
        return Verdict("holds", rule, repeats)
    if wrong:
        return Verdict("fails", rule, repeats)
    rule += f"; the interval includes {_fmt(edge)}"
    half = (high - low) / 2
    if repeats >= 2 and abs((high - estimate) - (estimate - low)) <= 1e-9 * max(1.0, abs(half)):
        # a t interval (estimate +- half): its spread tells the repeats that would decide
        from scipy import stats

        sd = half * math.sqrt(repeats) / float(stats.t.ppf(0.5 + confidence / 2, df=repeats - 1))
        n = _repeats_for(estimate, sd, repeats, [edge], confidence=confidence, limit=1000)
        rule += (
            f"; about {n} repeats would decide at this spread"
            if n
            else "; no number of repeats within 1,000 would decide at this spread"
        )
    return Verdict("inconclusive", rule, repeats)


def slope_interval(
    x: Sequence[float] | Any, y: Sequence[float] | Any, *, confidence: float = CONFIDENCE
) -> tuple[float, float, float, int]:
    """(slope, low, high, n) of the log-log fit of ``y`` against ``x`` over every repeated
    observation (not their medians), with the t quantile for ``n - 2`` degrees of freedom.
    Fewer than three observations or fewer than two distinct ``x``: NaN."""
    import numpy as np
    from scipy import stats

    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    ok = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
    xs, ys = np.log(xs[ok]), np.log(ys[ok])
    n = len(xs)
    if n < 3 or len(np.unique(xs)) < 2:
        return float("nan"), float("nan"), float("nan"), n
    fit = stats.linregress(xs, ys)
    half = float(stats.t.ppf(0.5 + confidence / 2, df=n - 2)) * float(fit.stderr)
    return float(fit.slope), float(fit.slope - half), float(fit.slope + half), n


def group_slopes(
    groups: Sequence[Any] | Any, x: Sequence[float] | Any, y: Sequence[float] | Any
) -> dict[Any, float]:
    """The log-log slope of ``y`` against ``x`` within each group (e.g. each seed's stream):
    least squares over the group's positive observations; a group with fewer than two
    distinct ``x`` has no slope and is left out."""
    import numpy as np

    g = np.asarray(groups, dtype=object)
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    ok = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
    out: dict[Any, float] = {}
    for key in dict.fromkeys(g[ok].tolist()):
        m = ok & (g == key)
        lx, ly = np.log(xs[m]), np.log(ys[m])
        if len(np.unique(lx)) < 2:
            continue
        dx = lx - lx.mean()
        out[key] = float((dx * (ly - ly.mean())).sum() / (dx * dx).sum())
    return out


def paired_slope_interval(
    groups: Sequence[Any] | Any,
    x: Sequence[float] | Any,
    y: Sequence[float] | Any,
    *,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float, int]:
    """(slope, low, high, n) of a log-log growth measured on paired groups: each group's own
    slope (:func:`group_slopes`; e.g. one seed's stream at every worker count), then the
    t interval of their mean over the ``n`` groups. Pairing takes out what differs between
    groups but not within one (one stream's level of work), which an interval over the
    pooled observations (:func:`slope_interval`) counts as noise. Fewer than two groups
    with a slope: NaN."""
    slopes = list(group_slopes(groups, x, y).values())
    if len(slopes) < 2:
        return float("nan"), float("nan"), float("nan"), len(slopes)
    est, lo, hi = t_interval(slopes, confidence=confidence)
    return est, lo, hi, len(slopes)


def ordering_measured(
    samples: Mapping[str, Sequence[float]],
    order: Sequence[str],
    *,
    partly_at: float = 0.5,
    min_repeats: int = MIN_REPEATS,
    confidence: float = CONFIDENCE,
    paired: bool = False,
    margin: float = 0.0,
) -> Verdict:
    """A ranking the paper states, ``order`` from smallest to largest, on repeated
    measurements: each adjacent pair is in order only if its intervals separate (a's high end
    below b's low end), out of order if they separate the other way, undecided if they
    overlap. Holds if every pair is in order; inconclusive if none is out of order but some
    is undecided; otherwise partly/fails by the share in order (:func:`share`).

    ``paired=True``: entry i of every sample was measured under the same conditions (same
    seed, same batch, timed back to back), and each adjacent pair is judged on the interval
    of its paired ratio b/a (:func:`ratio_interval`): in order if it lies above 1, reversed
    if below. Pairing removes what the repeats share (the workload drawn, the machine's
    state), so far fewer repeats separate a real difference. With ``margin`` > 0 (paired
    only) a pair is in order if its ratio's interval lies above ``1 + margin`` and out of
    order if it lies wholly below it (the smallest difference the ranking is about; see
    :func:`direction_measured`)."""
    if margin and not paired:
        raise ValueError("a margin needs paired samples")
    missing = [
        m for m in order if len([v for v in samples.get(m, ()) if math.isfinite(v)]) < min_repeats
    ]
    rule = (
        f"holds if the {confidence:.0%} intervals separate as {' < '.join(order)} for every "
        f"adjacent pair (>= {min_repeats} repeats each)"
        if not paired
        else f"holds if the {confidence:.0%} interval of every adjacent pair's paired ratio "
        f"lies above {_fmt(1 + margin)} as {' < '.join(order)} (>= {min_repeats} paired repeats)"
    )
    if missing:
        return not_comparable(f"{rule}; fewer than {min_repeats} repeats: {', '.join(missing)}")
    pairs = list(zip(order, order[1:], strict=False))
    if paired:
        ratio = {(a, b): ratio_interval(samples[b], samples[a], confidence=confidence)
                 for a, b in pairs}  # fmt: skip
        in_order = sum(ratio[p][1] > 1 + margin for p in pairs)
        reversed_ = sum(ratio[p][2] < 1 + margin for p in pairs)
        rule += "; " + ", ".join(
            f"{b}/{a} {_fmt(r)} [{_fmt(lo)}, {_fmt(hi)}]" for (a, b), (r, lo, hi) in ratio.items()
        )
    else:
        ci = {m: t_interval(samples[m], confidence=confidence) for m in order}
        in_order = sum(ci[a][2] < ci[b][1] for a, b in pairs)
        reversed_ = sum(ci[b][2] < ci[a][1] for a, b in pairs)
    undecided = len(pairs) - in_order - reversed_
    rule += f" ({in_order} in order, {reversed_} reversed, {undecided} overlapping)"
    n = min(len([v for v in samples[m] if math.isfinite(v)]) for m in order)
    if in_order == len(pairs):
        return Verdict("holds", rule, n)
    if reversed_ == 0:
        if paired:  # the paired repeats that would separate every open pair at its spread
            import numpy as np

            open_pairs = [
                (a, b)
                for a, b in pairs
                if not (ratio[a, b][1] > 1 + margin or ratio[a, b][2] < 1 + margin)
            ]
            need = [repeats_to_decide(np.log(np.asarray(samples[b], float)
                                             / np.asarray(samples[a], float)),
                                      [math.log(1 + margin)]) for a, b in open_pairs]  # fmt: skip
            rule += (f"; about {max(need)} paired repeats would decide at this spread"
                     if need and all(need) else
                     "; no number of repeats within 1,000 would decide at this spread")  # fmt: skip
        return Verdict("inconclusive", rule, n)
    v = share(in_order, len(pairs), partly_at=partly_at, rule=rule)
    return Verdict(v.verdict, v.rule, n)


def best_measured(
    samples: Mapping[str, Sequence[float]],
    winner: str,
    *,
    higher: bool = True,
    min_repeats: int = MIN_REPEATS,
    confidence: float = CONFIDENCE,
) -> Verdict:
    """ "``winner`` is the best" on paired repeated measurements (``higher=True``: the largest
    value is best, e.g. throughput; ``False``: the smallest, e.g. latency). Each rival is
    judged by :func:`direction_measured` of the winner against it: holds if every rival is
    beaten, fails if some rival is decidedly better, inconclusive otherwise."""
    rivals = [m for m in samples if m != winner]
    if winner not in samples or not rivals:
        return not_comparable(f"no {winner} or no rival measured")
    expected = "above" if higher else "below"
    parts = {m: direction_measured(samples[winner], samples[m], expected=expected,
                                   min_repeats=min_repeats, confidence=confidence)
             for m in rivals}  # fmt: skip
    word = "highest" if higher else "lowest"
    rule = f"holds if {winner}'s value is the {word}: " + "; ".join(
        f"vs {m}: {v.verdict} ({v.rule.rsplit('; ', 1)[-1]})" for m, v in parts.items()
    )
    verdicts = [v.verdict for v in parts.values()]
    n = min(v.repeats for v in parts.values())
    if "not comparable" in verdicts:
        return not_comparable(rule)
    if all(v == "holds" for v in verdicts):
        return Verdict("holds", rule, n)
    if "fails" in verdicts:
        return Verdict("fails", rule, n)
    return Verdict("inconclusive", rule, n)


def share_measured(
    verdicts: Sequence[Verdict], *, partly_at: float = 0.5, rule: str = "cases"
) -> Verdict:
    """A claim over several cases, each judged on repeated measurements: holds if every
    judged case holds; otherwise partly/fails by the share that holds (:func:`share`), but
    only where the inconclusive cases cannot change it: the verdict with every inconclusive
    case holding and with every one failing must agree, else the row is inconclusive (one
    case that noise happened to decide, among cases it left open, does not decide the row).
    Cases that are not comparable are left out and counted in the rule."""
    judged = [v for v in verdicts if v.verdict != "not comparable"]
    skipped = len(verdicts) - len(judged)
    n_ok = sum(v.verdict == "holds" for v in judged)
    n_open = sum(v.verdict == "inconclusive" for v in judged)
    n_fail = len(judged) - n_ok - n_open
    text = f"{rule}: {n_ok} hold, {n_open} inconclusive, {n_fail} do not"
    if skipped:
        text += f", {skipped} not comparable"
    if not judged:
        return not_comparable(text)
    repeats = min(v.repeats for v in judged)
    if n_ok == len(judged):
        return Verdict("holds", text + f" ({n_ok}/{len(judged)})", repeats)
    worst = share(n_ok, len(judged), partly_at=partly_at, rule=text).verdict
    best = share(n_ok + n_open, len(judged), partly_at=partly_at, rule=text).verdict
    if worst != best:
        return Verdict("inconclusive", f"{text}; the inconclusive cases would make it "
                       f"{worst} .. {best}", repeats)  # fmt: skip
    return Verdict(worst, text, repeats)


def geometric_mean(values: Iterable[float], *, positive_only: bool = False) -> float:
    """exp(mean(log x)) of positive values (NaN for none): how the claims combine ratios
    over datasets or grid points (S3-TM Sect. 6.2, PKG Table II).

    ``positive_only=True`` leaves out the values that are not finite and positive (a ratio
    of 0 or inf, NaN) instead of raising.

    Raises:
        ValueError: a value is zero, negative or NaN (unless ``positive_only``).
    """
    import numpy as np

    x = np.asarray(list(values), dtype=np.float64)
    if positive_only:
        x = x[np.isfinite(x) & (x > 0)]
    if len(x) == 0:
        return float("nan")
    if np.any(np.isnan(x)) or np.any(x <= 0):
        raise ValueError(f"geometric mean needs positive values, got {x.tolist()}")
    return float(np.exp(np.mean(np.log(x))))
