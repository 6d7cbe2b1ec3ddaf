"""Notebook 13's worked example: one post of the common stream and three interests, each
system's question answered by its definition, so the reader can check them by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.compare.interests import Interests, post_topics


def worked_example(
    stream: pd.DataFrame, interests: Interests, n_interests: int = 3
) -> dict[str, pd.DataFrame]:
    """The first post whose words contain some interest's words, that interest and the
    next ones: ``post`` (what each system reads of it) and ``interests`` (each form and
    whether the post matches it: S3-TM words contained; PS2Stream words contained and the
    place inside the square; Fabret topic, region and hour all equal or inside)."""
    f = interests.frame
    words = [set(w) for w in stream["words"]]
    wanted = [set(w) for w in f["words"]]
    first = next(
        ((i, j) for i, ws in enumerate(words) for j, want in enumerate(wanted) if want <= ws), None
    )
    if first is None:
        raise ValueError("no post contains every word of any interest")
    i, j = first
    post = stream.iloc[i]
    topic = int(post_topics(stream.iloc[[i]], interests.model)[0])
    rows = f.iloc[[(j + k) % len(f) for k in range(n_interests)]]
    lon, lat = float(post["lon"]), float(post["lat"])
    table = pd.DataFrame(
        {
            "words (S3-TM)": rows["words"].map(" ".join),
            "S3-TM matches": [set(w) <= words[i] for w in rows["words"]],
            "square (PS2Stream)": [
                f"{r[0]:.2f}..{r[2]:.2f} E, {r[1]:.2f}..{r[3]:.2f} N" for r in rows["rect"]
            ],
            "PS2Stream matches": [
                set(w) <= words[i] and r[0] <= lon <= r[2] and r[1] <= lat <= r[3]
                for w, r in zip(rows["words"], rows["rect"], strict=True)
            ],
            "predicates (Fabret)": [
                f"topic = {t} AND region = {g} AND {lo} <= hour <= {hi}"
                for t, g, lo, hi in zip(
                    rows["topic"], rows["region"], rows["hour_lo"], rows["hour_hi"], strict=True
                )
            ],
            "Fabret matches": [
                t == topic and g == int(post["region"]) and lo <= int(post["hour"]) <= hi
                for t, g, lo, hi in zip(
                    rows["topic"], rows["region"], rows["hour_lo"], rows["hour_hi"], strict=True
                )
            ],
        },
        index=pd.Index(rows["sub_id"].to_numpy(), name="interest"),
    )
    facts = pd.Series(
        {
            "post_id": int(post["post_id"]),
            "words (S3-TM)": " ".join(post["words"]),
            "keys (key grouping)": " ".join(
                [f"@{post['account']}", *(f"#{h}" for h in post["hashtags"])]
            ),
            "place (PS2Stream)": f"{lon:.2f} E, {lat:.2f} N",
            "topic, region, hour (Fabret)": f"{topic}, {int(post['region'])}, {int(post['hour'])}",
        },
        name="the post",
    )
    return {
        "post": facts.to_frame(),
        "interests": table.astype({c: np.bool_ for c in table if "matches" in c}),
    }
