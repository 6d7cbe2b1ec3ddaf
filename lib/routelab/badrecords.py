"""The bad-record report: input records that were skipped, counted by reason, with examples.

A loader never drops a record silently and never stops halfway because of one bad record:
every record it cannot use gets exactly one *reason* (the first check
it fails), the report counts records per reason and keeps the first few examples of each
(file, 1-based line number, a short excerpt), and the good records go on.

Reasons used by :mod:`routelab.datasets.loaders` (see :data:`REASONS`):

=====================  ==================================================================
``bad_encoding``       the line is not valid UTF-8 (a U+FFFD written as UTF-8 is text)
``malformed_json``     the line is not a JSON value
``malformed_row``      a CSV row with a different number of fields than the header
``row_too_long``       a CSV field longer than 16M characters (excerpt: the row's start)
``unterminated_quote`` a CSV quote opened and never closed (reading resumes on the next line)
``not_a_post``         valid JSON that is no tweet (stream notices such as ``delete``,
                       ``limit``; a v2 line without ``data``)
``missing_text``       no text field, or an empty/non-string one
``missing_key``        a key stream record without a key
``bad_timestamp``      a time value present but not parseable (or out of range)
``bad_coordinates``    coordinates present but not two numbers with lat in [-90, 90] and
                       lon in [-180, 180] (or only one of lat/lon given)
``bad_id``             an id column value that is present but not an integer (or one
                       too large for 64 bits)
``blank_line``         an empty line in a line-oriented file
=====================  ==================================================================
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

REASONS: dict[str, str] = {
    "bad_encoding": "not valid UTF-8",
    "malformed_json": "not a JSON value",
    "malformed_row": "CSV row with the wrong number of fields",
    "row_too_long": "a CSV field longer than the reader's limit (16M characters)",
    "unterminated_quote": "a CSV quote never closed (the rest of the file would be one field)",
    "not_a_post": "JSON that is not a tweet (stream notice, v2 line without data)",
    "missing_text": "no usable text",
    "missing_key": "no key",
    "bad_timestamp": "time not parseable",
    "bad_coordinates": "lat/lon invalid or out of range",
    "bad_id": "id present but not an integer (or beyond 64 bits)",
    "blank_line": "empty line",
    "coordinates_out_of_range": "lat outside [-90, 90] or lon outside [-180, 180]",
    "no_words": "no word left after cleaning (stop words only, or empty)",
    "duplicate_id": "an id seen earlier in the file",
    "bad_time": "time not a number",
    "bad_rectangle": "a query bound missing, not a number, or min > max",
    "bad_expression": "keyword expression not parseable (AND/OR, parentheses)",
    "stopword_keyword": "a conjunct of the expression has only stop words",
    "stop_word": "a subscription word is a stop word: no post holds it",
    "delete_before_insert": "a query's delete time is before its insert time",
    "or_keywords": "an interest's keywords hold OR (compare run reads one AND of words)",
    "bad_hours": "hour_lo / hour_hi not whole hours with 0 <= hour_lo <= hour_hi <= 23",
    "unknown_operator": "an operator outside < <= = != >= >",
    "non_numeric_value": "a value that does not fit its attribute's kind (or a range on text)",
    "subscription_dropped": "another row of the same subscription is bad",
    "repeated_attribute": "an event giving one attribute twice",
    "missing_field": "a field the dataset's record needs is absent",
    "missing_name": "a place without a name",
    "duplicate_key": "a key seen earlier in the file",
    "bad_location": "no valid lat/lon",
    "missing_value": "a value the dataset's record needs is empty or not a number",
    "bad_rating": "a rating outside the dataset's scale",
    "bad_population": "a population that is not a non-negative number",
    "pre_snowflake_id": "a tweet id from before 2010 that carries no creation time",
}

MAX_EXAMPLES = 5
EXCERPT_CHARS = 60


def excerpt(value: str | bytes | None, limit: int = EXCERPT_CHARS) -> str:
    """A short, printable, single-line excerpt of a record (escapes control characters)."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="backslashreplace")
    text = value.encode("unicode_escape").decode("ascii") if not value.isprintable() else value
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True, order=True)
class BadRecordExample:
    """One skipped record: where it is and what it looked like."""

    file: str
    line: int
    excerpt: str
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "excerpt": self.excerpt,
            "detail": self.detail,
        }


@dataclass
class BadRecordReport:
    """Counts of skipped records by reason, plus up to ``max_examples`` examples each.

    Attributes:
        records: records read in total (good and bad).
        counts: skipped records per reason.
        examples: per reason, the examples with the smallest (file, line).
    """

    records: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[BadRecordExample]] = field(default_factory=dict)
    max_examples: int = MAX_EXAMPLES

    def add(
        self,
        reason: str,
        file: str,
        line: int,
        text: str | bytes | None = None,
        detail: str = "",
        count: int = 1,
    ) -> None:
        """Count ``count`` skipped records of ``reason`` and keep one example."""
        self.counts[reason] += count
        self.add_example(reason, BadRecordExample(file, int(line), excerpt(text), detail))

    def add_example(self, reason: str, example: BadRecordExample) -> None:
        """Keep ``example`` if it is among the first ``max_examples`` by (file, line)."""
        kept = self.examples.setdefault(reason, [])
        if example in kept:
            return
        kept.append(example)
        kept.sort()
        del kept[self.max_examples :]

    @property
    def bad(self) -> int:
        """Records skipped, all reasons together."""
        return sum(self.counts.values())

    @property
    def good(self) -> int:
        """Records kept."""
        return self.records - self.bad

    def merge(self, other: BadRecordReport) -> BadRecordReport:
        """Add another report's records, counts and examples to this one (returns self)."""
        self.records += other.records
        self.counts.update(other.counts)
        for reason, examples in other.examples.items():
            for example in examples:
                self.add_example(reason, example)
        return self

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: records, good, bad, counts and examples by reason."""
        return {
            "records": self.records,
            "good": self.good,
            "bad": self.bad,
            "counts": dict(sorted(self.counts.items())),
            "examples": {r: [e.to_dict() for e in ex] for r, ex in sorted(self.examples.items())},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BadRecordReport:
        """Inverse of :meth:`to_dict`."""
        report = cls(records=int(data.get("records", 0)), counts=Counter(data.get("counts", {})))
        for reason, examples in data.get("examples", {}).items():
            for e in examples:
                report.add_example(
                    reason,
                    BadRecordExample(e["file"], int(e["line"]), e["excerpt"], e.get("detail", "")),
                )
        return report

    def __str__(self) -> str:
        lines = [f"{self.records:,} records read, {self.good:,} kept, {self.bad:,} skipped"]
        if not self.counts:
            return lines[0]
        width = max(len(r) for r in self.counts)
        lines.append(f"  {'reason':<{width}}  {'count':>10}  meaning")
        for reason, count in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {reason:<{width}}  {count:>10,}  {REASONS.get(reason, '')}")
        lines.append("  examples (file:line  excerpt  [detail]):")
        for reason in sorted(self.examples):
            for e in self.examples[reason]:
                detail = f"  [{e.detail}]" if e.detail else ""
                lines.append(f'    {reason}: {e.file}:{e.line}  "{e.excerpt}"{detail}')
        return "\n".join(lines)
