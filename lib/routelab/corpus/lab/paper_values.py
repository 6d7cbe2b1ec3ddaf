"""Numbers printed in the papers, for side-by-side comparison in the notebooks.

Only values stated in the paper texts are recorded here, each with its source. Nothing here
is used by an algorithm.
"""

from __future__ import annotations

# S3-TM Table 1 (Sect. 6.1): properties of the two ~1M-tweet learning corpora.
S3TM_TABLE1: dict[str, dict[str, int]] = {
    "paper: April 2013": {
        "posts": 979_442,
        "unique_words": 100_310,
        "total_word_freq": 3_874_826,
        "word_pairs": 5_507_437,
    },
    "paper: Sparse": {
        "posts": 979_442,
        "unique_words": 198_887,
        "total_word_freq": 10_190_479,
        "word_pairs": 7_559_671,
    },
}


def per_post(table: dict[str, int]) -> dict[str, float]:
    """Table 1 normalised per post: words per post, pairs per post, posts per word."""
    posts = table["posts"]
    return {
        "words_per_post": table["total_word_freq"] / posts,
        "pairs_per_post": table["word_pairs"] / posts,
        "unique_words_per_1k_posts": 1000 * table["unique_words"] / posts,
    }
