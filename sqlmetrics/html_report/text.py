"""How the report writes text: escaped for HTML, and kept in reading order whatever a
slice value or a column name holds.

A value with a right-to-left override (U+202E) was shown reversed, and with it the text
around it. So the bidirectional controls (embeddings, overrides, isolates and marks) are
shown as what they are, ``<U+202E>``, and a text with right-to-left characters (Arabic,
Hebrew) is isolated (between U+2068 and U+2069), so that it orders itself without
reordering what surrounds it. Other text is only escaped.

>>> escape('a<b "c"')
'a&lt;b &quot;c&quot;'
>>> escape("country=\\u202eabc")
'country=&lt;U+202E&gt;abc'
>>> escape("\\u05d0\\u05d1") == "\\u2068\\u05d0\\u05d1\\u2069"
True
"""

from __future__ import annotations

import html
import unicodedata

_CONTROLS = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
_MARKS = {"\u200e", "\u200f", "\u061c"}  # left-to-right, right-to-left and Arabic letter marks
_RIGHT_TO_LEFT = {"R", "AL"}


def escape(text: str) -> str:
    """``text`` escaped for HTML (quotes too), its bidirectional controls shown as code
    points, isolated when it holds right-to-left characters."""
    shown = "".join(
        f"<U+{ord(char):04X}>" if char in _MARKS or unicodedata.bidirectional(char) in _CONTROLS else char
        for char in text
    )
    escaped = html.escape(shown)
    if any(unicodedata.bidirectional(char) in _RIGHT_TO_LEFT for char in shown):
        return f"\u2068{escaped}\u2069"
    return escaped
