"""What every loader accepts as a number: Python's ``float`` syntax without its extensions that no
data file means as a number — digit-group underscores (``1_000``) and non-ASCII digits (``１２``)."""
from __future__ import annotations


def first_unusual_number(tokens) -> int | None:
    """The position of the first token with an underscore or a non-ASCII character, or None (one
    pass over the joined text when there is none, the common case)."""
    joined = "".join(tokens)
    if "_" not in joined and joined.isascii():
        return None
    return next(i for i, token in enumerate(tokens) if "_" in token or not token.isascii())
