"""ARFF reader for Mulan (labels named in an XML file) and MEKA (``-C n`` in the relation name) data.

Supported: case-insensitive ``@relation``/``@attribute``/``@data``; whole-line ``%`` comments; types
``numeric``/``real``/``integer`` and nominal ``{a, b, 'c d'}``; quoted names and values with backslash
escapes (``'it\\'s'``, ``"a b"``); ``?`` for missing values, and for a numeric attribute also ``nan``
(any case, signed or not: ``NaN``, ``-nan``), as in CSV and svmlight; dense rows and sparse rows
``{i v, j w}``, where an omitted value is 0 for numeric attributes and the first declared value (code 0)
for nominal ones.  ``string``, ``date`` and ``relational`` attributes are rejected.  Nominal attributes become
codes 0..m-1 in declaration order.  Label attributes must be nominal with values from {0, 1} or
numeric with only 0/1 values; labels keep the order of the attributes in the ARFF file.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from xml.parsers import expat

import numpy as np

from .dataset import Dataset, check_table_size
from .errors import DatasetFormatError, DatasetWarning, LabelsNotFoundError
from .numbers import first_unusual_number
from .targets import is_real_valued, real_targets

_NUMERIC_TYPES = {"numeric", "real", "integer"}
_UNSUPPORTED_TYPES = {"string", "date", "relational"}
_MEKA_C = re.compile(r"-C\s*(-?\d+)")
FLOAT32_MAX = float(np.finfo(np.float32).max)
DENSE_CHUNK = 2048  # dense rows whose tokens are converted together
_SPLIT_SUFFIXES = ("-train", "-test", "_train", "_test", ".train", ".test")
_UNQUOTED_NAME = re.compile(r"[^\s{]+")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


@dataclass
class Attribute:
    """One ``@attribute`` declaration; ``values`` is None for numeric attributes."""

    name: str
    values: list[str] | None
    line: int

    def __post_init__(self):
        self.codes = None if self.values is None else {v: float(i) for i, v in enumerate(self.values)}
        if self.codes is not None:
            self.codes.setdefault("?", np.nan)


class _BadValue(Exception):
    def __init__(self, position: int, problem: str):
        super().__init__(problem)
        self.position, self.problem = position, problem


# ----------------------------------------------------------------------------------------- tokens
def split_quoted(text: str) -> list[str]:
    """Split ``text`` at commas outside quotes; drop the quotes, resolve backslash escapes inside them,
    strip unquoted surrounding whitespace.  Raises ValueError on an unterminated quote."""
    tokens: list[str] = []
    chars: list[str] = []
    keep = 0  # chars[:keep] end inside a quoted part and survive the right-strip
    quote, started, i, n = None, False, 0, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\" and i + 1 < n:
                i += 1
                chars.append(_ESCAPES.get(text[i], text[i]))
            elif c == quote:
                quote, keep = None, len(chars)
            else:
                chars.append(c)
        elif c == ",":
            tokens.append(_finish(chars, keep))
            chars, keep, started = [], 0, False
        elif c in "'\"":
            quote, started = c, True
        elif not (c.isspace() and not started):
            chars.append(c)
            started = True
        i += 1
    if quote:
        raise ValueError(f"unterminated quote {quote}")
    tokens.append(_finish(chars, keep))
    return tokens


def _finish(chars: list[str], keep: int) -> str:
    text = "".join(chars)
    return text[:keep] + text[keep:].rstrip()


def _read_name(text: str) -> tuple[str, str]:
    """The leading (possibly quoted) name of ``text`` and the rest; ValueError if there is none."""
    text = text.lstrip()
    if text[:1] in ("'", '"'):
        quote, chars, i = text[0], [], 1
        while i < len(text):
            c = text[i]
            if c == "\\" and i + 1 < len(text):
                i += 1
                chars.append(_ESCAPES.get(text[i], text[i]))
            elif c == quote:
                return "".join(chars), text[i + 1:]
            else:
                chars.append(c)
            i += 1
        raise ValueError(f"unterminated quote {quote}")
    match = _UNQUOTED_NAME.match(text)
    if not match:
        raise ValueError("missing name")
    return match.group(), text[match.end():]


# ----------------------------------------------------------------------------------------- header
def _parse_attribute(path, text: str, line: int) -> Attribute:
    try:
        name, rest = _read_name(text)
    except ValueError as exc:
        raise DatasetFormatError(path, f"bad @attribute declaration: {exc}", line) from None
    spec = rest.strip()
    if not spec:
        raise DatasetFormatError(path, f"attribute '{name}' has no type", line)
    if spec.startswith("{"):
        if not spec.endswith("}"):
            raise DatasetFormatError(path, f"nominal values of attribute '{name}' lack a closing '}}'", line)
        try:
            values = split_quoted(spec[1:-1])
        except ValueError as exc:
            raise DatasetFormatError(path, f"nominal values of attribute '{name}': {exc}", line) from None
        if values == [""]:
            raise DatasetFormatError(path, f"attribute '{name}' declares no nominal values", line)
        if "" in values:
            raise DatasetFormatError(path, f"attribute '{name}' declares an empty nominal value", line)
        if len(set(values)) != len(values):
            raise DatasetFormatError(path, f"attribute '{name}' declares a nominal value twice", line)
        return Attribute(name, values, line)
    kind = spec.split()[0]
    if kind.lower() in _NUMERIC_TYPES:
        return Attribute(name, None, line)
    if kind.lower() in _UNSUPPORTED_TYPES:
        raise DatasetFormatError(path, f"attribute '{name}' has type '{kind}', which is not supported "
                                       "(only numeric and nominal attributes are)", line)
    raise DatasetFormatError(path, f"unknown type '{kind}' of attribute '{name}' "
                                   "(expected numeric, real, integer or {...})", line)


@dataclass
class ArffContent:
    """Everything read from an ARFF file: values as float64 (nominal as codes, NaN = missing)."""

    relation: str
    relation_line: int | None
    attributes: list[Attribute]
    values: np.ndarray
    row_lines: np.ndarray  # line number of every data row


def read_arff(path, progress=None) -> ArffContent:
    """Parse an ARFF file; raises DatasetFormatError naming the line of any problem.  ``progress``
    (optional) is called with the fraction of data lines parsed, about 50 times."""
    path = Path(path)
    lines = _read_text(path).splitlines()
    if not any(line.strip() for line in lines):
        raise DatasetFormatError(path, "the file is empty")
    relation, relation_line, attributes, names = "", None, [], set()
    for index, raw in enumerate(lines):
        line_no, line = index + 1, raw.strip()
        if not line or line.startswith("%"):
            continue
        keyword = line.split(None, 1)[0].lower()
        if keyword == "@relation":
            relation_line = line_no
            try:
                name, rest = _read_name(line[len(keyword):])
            except ValueError as exc:
                raise DatasetFormatError(path, f"bad @relation: {exc}", line_no) from None
            relation = (name + " " + rest.strip()).strip()
        elif keyword == "@attribute":
            attribute = _parse_attribute(path, line[len(keyword):], line_no)
            if attribute.name in names:
                raise DatasetFormatError(path, f"attribute '{attribute.name}' is declared twice", line_no)
            names.add(attribute.name)
            attributes.append(attribute)
        elif keyword == "@data":
            if not attributes:
                raise DatasetFormatError(path, "@data before any @attribute declaration", line_no)
            values, row_lines = _parse_data(path, attributes, lines, index + 1, progress)
            return ArffContent(relation, relation_line, attributes, values, row_lines)
        else:
            raise DatasetFormatError(path, f"expected @relation, @attribute or @data, found '{line[:40]}'",
                                     line_no)
    raise DatasetFormatError(path, "the file ends without a @data section", len(lines))


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# ----------------------------------------------------------------------------------------- data
def _parse_data(path, attributes, lines, start, progress=None):
    n_attributes = len(attributes)
    step = max(1, (len(lines) - start) // 50)
    row_lines: list[int] = []
    dense_rows: list[list[str]] = []  # tokens of at most DENSE_CHUNK rows, then converted
    dense_index: list[int] = []
    dense_blocks: list[tuple[np.ndarray, np.ndarray]] = []  # (row positions, float64 values)

    def convert_dense():
        rows = np.asarray(dense_index)
        block = np.empty((len(rows), n_attributes))
        for j, column in enumerate(zip(*dense_rows)):
            block[:, j] = _convert_checked(path, column, attributes[j], rows, row_lines)
        dense_blocks.append((rows, block))
        dense_rows.clear()
        dense_index.clear()

    sparse_counts: list[int] = []  # entries per row (0 for dense rows)
    sparse_index: list[str] = []
    sparse_vals: list[str] = []
    for index in range(start, len(lines)):
        if progress is not None and (index - start) % step == 0:
            progress(0.9 * (index - start) / max(len(lines) - start, 1))
        line = lines[index].strip()
        if not line or line[0] == "%":
            continue
        line_no = index + 1
        quoted = "'" in line or '"' in line
        try:
            if line[0] == "{":
                if line[-1] != "}":
                    raise ValueError("sparse row lacks its closing '}'")
                body = line[1:-1]
                if not body.strip():
                    pairs = []
                elif quoted:
                    pairs = [entry.split(None, 1) for entry in split_quoted(body)]
                else:
                    pairs = [entry.split() for entry in body.split(",")]
                if not all(len(pair) == 2 for pair in pairs):
                    bad = next(",".join(pair) for pair in pairs if len(pair) != 2)
                    raise ValueError(f"bad sparse entry '{bad}' (expected '<index> <value>')")
                sparse_index.extend([pair[0] for pair in pairs])
                sparse_vals.extend([pair[1] for pair in pairs])
                sparse_counts.append(len(pairs))
            else:
                tokens = split_quoted(line) if quoted else [t.strip() for t in line.split(",")]
                if len(tokens) != n_attributes:
                    raise ValueError(f"expected {n_attributes} values, found {len(tokens)}")
                dense_index.append(len(row_lines))
                dense_rows.append(tokens)
                sparse_counts.append(0)
        except ValueError as exc:
            raise DatasetFormatError(path, str(exc), line_no) from None
        row_lines.append(line_no)
        if len(dense_rows) == DENSE_CHUNK:
            convert_dense()  # tokens are ~7x the size of their values: never hold them all
    if dense_rows:
        convert_dense()
    check_table_size(path, len(row_lines), n_attributes, 8, "attributes and labels")  # before the allocation
    values = np.zeros((len(row_lines), n_attributes), dtype=np.float64)
    for rows, block in dense_blocks:
        values[rows] = block
    dense_blocks.clear()
    if sparse_index:
        rows = np.repeat(np.arange(len(row_lines)), sparse_counts)
        cols = _sparse_columns(path, sparse_index, n_attributes, rows, row_lines)
        _fill_sparse(path, values, attributes, rows, cols, sparse_vals, row_lines)
    return values, np.asarray(row_lines, dtype=np.int64)


def _sparse_columns(path, tokens, n_attributes, rows, row_lines) -> np.ndarray:
    try:
        cols = np.array(tokens, dtype=np.int64)
        bad = np.flatnonzero((cols < 0) | (cols >= n_attributes))
    except ValueError:
        cols, bad = None, [next((i for i, t in enumerate(tokens) if not (t.isascii() and t.isdigit())), 0)]
    except OverflowError:  # an index beyond 64 bits
        cols, bad = None, [next((i for i, t in enumerate(tokens) if len(t.strip().lstrip("+-")) > 18), 0)]
    if len(bad):
        i = int(bad[0])
        problem = (f"attribute index {tokens[i]} out of range 0..{n_attributes - 1}" if cols is not None
                   else f"bad attribute index '{tokens[i]}' in sparse row")
        raise DatasetFormatError(path, problem, row_lines[int(rows[i])])
    return cols


def _fill_sparse(path, values, attributes, rows, cols, vals, row_lines):
    order = np.lexsort((rows, cols))  # by column, rows ascending within a column
    rows, cols = rows[order], cols[order]
    vals = [vals[i] for i in order]
    twice = np.flatnonzero((np.diff(cols) == 0) & (np.diff(rows) == 0))
    if twice.size:
        i = int(twice[0])
        raise DatasetFormatError(path, f"attribute index {cols[i]} occurs twice in one sparse row",
                                 row_lines[int(rows[i])])
    bounds = np.flatnonzero(np.diff(cols)) + 1
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(cols)]):
        j = int(cols[lo])
        values[rows[lo:hi], j] = _convert_checked(path, vals[lo:hi], attributes[j], rows[lo:hi], row_lines)


def _convert_checked(path, tokens, attribute, rows, row_lines) -> np.ndarray:
    try:
        return _convert(tokens, attribute)
    except _BadValue as bad:
        raise DatasetFormatError(path, bad.problem, row_lines[int(rows[bad.position])]) from None


def _convert(tokens, attribute: Attribute) -> np.ndarray:
    """Float values of one attribute's tokens; raises _BadValue at the first invalid token."""
    if attribute.codes is None:
        try:
            out = np.array(tokens, dtype=np.float64)
            unusual = first_unusual_number(tokens)
            if unusual is not None:
                raise _BadValue(unusual, f"value '{tokens[unusual]}' of numeric attribute '{attribute.name}' is "
                                         "written with '_' or non-ASCII digits, which a data file's numbers never are")
        except ValueError:
            out = np.empty(len(tokens))
            for i, token in enumerate(tokens):
                try:
                    if first_unusual_number([token]) is not None:
                        raise ValueError(token)
                    out[i] = np.nan if token == "?" else float(token)
                except ValueError:
                    raise _BadValue(i, f"non-numeric value '{token}' for numeric attribute "
                                       f"'{attribute.name}'") from None
        too_large = np.flatnonzero(np.abs(out) > FLOAT32_MAX)  # inf included; NaN (missing) is not
        if too_large.size:
            i = int(too_large[0])
            raise _BadValue(i, f"value '{tokens[i]}' of attribute '{attribute.name}' is infinite or beyond the "
                               f"float32 range (±3.4e38)")
        return out
    codes = attribute.codes
    try:
        return np.array([codes[token] for token in tokens], dtype=np.float64)
    except KeyError:
        for i, token in enumerate(tokens):
            if token not in codes:
                raise _BadValue(i, f"value '{token}' is not a declared value of nominal attribute "
                                   f"'{attribute.name}' {_show_values(attribute.values)}") from None
        raise


def _show_values(values: list[str], limit: int = 8) -> str:
    shown = ", ".join(values[:limit]) + (", ..." if len(values) > limit else "")
    return "{" + shown + "}"


# ----------------------------------------------------------------------------------------- labels
def read_mulan_labels(xml_path) -> list[tuple[str, int]]:
    """(name, line) of every ``<label name=...>`` element of a Mulan XML file, nested ones included."""
    xml_path = Path(xml_path)
    data = xml_path.read_bytes()
    if not data.strip():
        raise DatasetFormatError(xml_path, "the file is empty")
    parser = expat.ParserCreate(namespace_separator=" ")
    labels: list[tuple[str, int]] = []

    def start(tag, attrs):
        if tag.rsplit(" ", 1)[-1] == "label":
            if "name" not in attrs:
                raise DatasetFormatError(xml_path, "<label> element without a name attribute",
                                         parser.CurrentLineNumber)
            labels.append((attrs["name"], parser.CurrentLineNumber))

    parser.StartElementHandler = start
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise DatasetFormatError(xml_path, f"malformed XML: {expat.ErrorString(exc.code)}", exc.lineno) from None
    except (LookupError, ValueError, UnicodeError) as exc:  # e.g. an unknown encoding declared
        if isinstance(exc, DatasetFormatError):
            raise
        raise DatasetFormatError(xml_path, f"malformed XML: {exc}", parser.CurrentLineNumber) from None
    return labels


def _is_binary(attribute: Attribute) -> bool:
    return attribute.values is not None and sorted(attribute.values) == ["0", "1"]


def _meka_label_indices(path, content: ArffContent) -> list[int]:
    n = len(content.attributes)
    match = _MEKA_C.search(content.relation)
    if not match:
        candidates = [a.name for a in content.attributes if _is_binary(a)]
        raise LabelsNotFoundError(path, f"no labels: the relation name '{content.relation}' has no '-C <n>' (MEKA) "
                                        f"and there is no Mulan label file ({_base_name(Path(path))}.xml); choose "
                                        f"the label attributes or the XML file", content.relation_line, candidates)
    c = int(match.group(1))
    if c == 0 or abs(c) >= n:
        raise DatasetFormatError(path, f"'-C {c}' in the relation name must leave at least one label and one "
                                       f"attribute among {n} attributes", content.relation_line)
    labels = list(range(c)) if c > 0 else list(range(n + c, n))
    other_end = list(range(n - c, n)) if c > 0 else list(range(-c))
    attrs = content.attributes
    if not all(_is_binary(attrs[j]) for j in labels) and all(_is_binary(attrs[j]) for j in other_end):
        warnings.warn(DatasetWarning(
            f"{Path(path).name}: '-C {c}' in the relation name makes the {'first' if c > 0 else 'last'} {abs(c)} "
            f"attributes the labels, but they are not all binary {{0,1}} while the {'last' if c > 0 else 'first'} "
            f"{abs(c)} are: the header may be stale (as in Mulan's medical-train.arff); give the Mulan XML file to "
            f"be sure"), stacklevel=4)
    return labels


def _base_name(path: Path) -> str:
    """The data set's name without a ``-train``/``-test`` part (Mulan's split files share one XML)."""
    stem = path.stem
    for suffix in _SPLIT_SUFFIXES:
        if stem.lower().endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return stem


def find_mulan_xml(path, attribute_names=None) -> Path | None:
    """The Mulan label file of an ARFF file: ``<stem>.xml``, else ``<name>.xml`` with a ``-train``/``-test``
    suffix stripped, else (given the file's ``attribute_names``) the only ``*.xml`` in the folder whose
    labels are all attributes of the file."""
    path = Path(path)
    for candidate in (path.with_suffix(".xml"), path.with_name(_base_name(path) + ".xml")):
        if candidate.is_file():
            return candidate
    if attribute_names is None:
        return None
    names = set(attribute_names)
    matches = []
    for candidate in sorted(path.parent.glob("*.xml")):
        try:
            labels = read_mulan_labels(candidate)
        except (DatasetFormatError, OSError):
            continue
        unescaped = {_unescape(n) for n in names}
        if labels and all(name in names or _unescape(name) in names | unescaped for name, _ in labels):
            matches.append(candidate)
    return matches[0] if len(matches) == 1 else None


def test_sibling(path) -> Path | None:
    """For a Mulan/MEKA training file (``scene-train.arff``) its test file (``scene-test.arff``), if it exists."""
    path = Path(path)
    stem = path.stem
    for train, test in (("-train", "-test"), ("_train", "_test"), (".train", ".test"),
                        ("-TRAIN", "-TEST"), ("_TRAIN", "_TEST")):
        if stem.endswith(train):
            sibling = path.with_name(stem[: -len(train)] + test + path.suffix)
            if sibling.is_file():
                return sibling
    return None


test_sibling.__test__ = False  # not a pytest test, despite its name


def _mulan_label_indices(path, xml_path, content: ArffContent) -> list[int]:
    labels = read_mulan_labels(xml_path)
    if not labels:
        raise DatasetFormatError(xml_path, "no labels: the file has no <label name=...> element")
    positions = {a.name: j for j, a in enumerate(content.attributes)}
    unescaped = _by_unescaped_name(content.attributes)
    seen = set()
    for name, line in labels:
        if name not in positions and _unescape(name) in positions:
            name = _unescape(name)  # the XML copies the ARFF's escaped name ('rock\'n\'roll')
        elif name not in positions and _unescape(name) in unescaped:
            name = unescaped[_unescape(name)]  # an unquoted ARFF name with escapes: both sides unescaped alike
        if name not in positions:
            raise DatasetFormatError(xml_path, f"label '{name}' is not an attribute of {Path(path).name}", line)
        if name in seen:
            raise DatasetFormatError(xml_path, f"label '{name}' is listed twice", line)
        seen.add(name)
    if len(seen) == len(positions):
        raise DatasetFormatError(xml_path, f"every attribute of {Path(path).name} is a label; no features left")
    return sorted(positions[name] for name in seen)


def _by_unescaped_name(attributes) -> dict[str, str]:
    """Attribute names by their unescaped form (names whose unescaped form is ambiguous are left out)."""
    out: dict[str, str | None] = {}
    for a in attributes:
        key = _unescape(a.name)
        out[key] = a.name if key not in out else None
    return {k: v for k, v in out.items() if v is not None}


def _unescape(name: str) -> str:
    """``name`` with the ARFF backslash escapes of quoted names resolved (as :func:`_read_name` does)."""
    if "\\" not in name:
        return name
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), name, flags=re.DOTALL)


def _chosen_label_indices(path, content: ArffContent, label_columns) -> list[int]:
    names = {a.name: j for j, a in enumerate(content.attributes)}
    n = len(content.attributes)
    chosen = []
    for column in ([label_columns] if isinstance(label_columns, (str, int)) else list(label_columns)):
        if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not -n <= column < n:
                raise DatasetFormatError(path, f"label column index {column} out of range for {n} attributes")
            chosen.append(int(column) % n)
        elif str(column) in names:
            chosen.append(names[str(column)])
        else:
            raise DatasetFormatError(path, f"label attribute '{column}' is not an attribute of the file")
    if not chosen:
        raise DatasetFormatError(path, "label_columns names no attribute")
    if len(set(chosen)) != len(chosen):
        raise DatasetFormatError(path, "label_columns names an attribute twice")
    if len(chosen) == n:
        raise DatasetFormatError(path, "every attribute is a label; no features left")
    return sorted(chosen)


def _label_column(path, content: ArffContent, j: int) -> np.ndarray:
    attribute, column = content.attributes[j], content.values[:, j]
    missing = np.flatnonzero(np.isnan(column))
    if missing.size:
        raise DatasetFormatError(path, f"missing value '?' for label '{attribute.name}'",
                                 int(content.row_lines[missing[0]]))
    if attribute.values is not None:
        if not set(attribute.values) <= {"0", "1"}:
            raise DatasetFormatError(path, f"label attribute '{attribute.name}' must be binary {{0,1}}, but is "
                                           f"declared as {_show_values(attribute.values)}", attribute.line)
        one = attribute.values.index("1") if "1" in attribute.values else -1
        return (column == one).astype(np.uint8)
    bad = np.flatnonzero((column != 0) & (column != 1))
    if bad.size:
        raise DatasetFormatError(path, f"label '{attribute.name}' has value {column[bad[0]]:g}; "
                                       "labels must be 0 or 1", int(content.row_lines[bad[0]]))
    return column.astype(np.uint8)


def _targets(path, content: ArffContent, label_idx: list[int], task) -> np.ndarray | None:
    """The real-valued targets (float32) when the label attributes are numeric and hold a value other than
    0 and 1 (or ``task`` is 'regression'); None for 0/1 labels."""
    numeric = [j for j in label_idx if content.attributes[j].values is None]
    if task == "classification" or (task is None and not any(is_real_valued(content.values[:, j]) for j in numeric)):
        return None
    nominal = [content.attributes[j] for j in label_idx if content.attributes[j].values is not None]
    if nominal:
        raise DatasetFormatError(path, f"target attribute '{nominal[0].name}' is nominal, but the other targets are "
                                       "real-valued numbers; a regression data set's targets must all be NUMERIC",
                                 nominal[0].line)
    return real_targets(path, [content.attributes[j].name for j in label_idx],
                        [content.values[:, j] for j in label_idx], content.row_lines)


def load_arff(path, xml=None, label_columns=None, progress=None, task=None) -> Dataset:
    """Load a Mulan ARFF (labels named in ``xml`` or the XML :func:`find_mulan_xml` finds) or a MEKA ARFF
    (``-C n`` in the relation name); ``label_columns`` (attribute names or indices) overrides both.  A
    Mulan XML named after the file (``<stem>.xml``, ``<name>.xml`` of a split file) is preferred over a
    MEKA header; another XML of the folder is only a guess and used only when there is no MEKA header.
    Raises LabelsNotFoundError when nothing says which attributes are labels.  Numeric label attributes
    holding a value other than 0 and 1 are real-valued targets (a regression data set, :mod:`.targets`);
    ``task`` ('classification', 'regression') decides instead."""
    path = Path(path)
    if xml is not None and not Path(xml).is_file():
        raise FileNotFoundError(2, "Mulan label file not found", str(xml))
    content = read_arff(path, progress)
    if label_columns is not None:
        label_idx = _chosen_label_indices(path, content, label_columns)
    else:
        xml_path = Path(xml) if xml is not None else find_mulan_xml(path)
        if xml_path is None and not _MEKA_C.search(content.relation):  # the folder's guess never beats -C n
            xml_path = find_mulan_xml(path, [a.name for a in content.attributes])
        if xml_path is not None:
            label_idx = _mulan_label_indices(path, xml_path, content)
        else:
            label_idx = _meka_label_indices(path, content)
    Y = _targets(path, content, label_idx, task)
    if Y is None:
        Y = np.empty((content.values.shape[0], len(label_idx)), dtype=np.uint8)
        for k, j in enumerate(label_idx):
            Y[:, k] = _label_column(path, content, j)
    is_label = np.zeros(len(content.attributes), dtype=bool)
    is_label[label_idx] = True
    feature_idx = np.flatnonzero(~is_label)
    features = [content.attributes[j] for j in feature_idx]
    return Dataset(
        X=np.ascontiguousarray(content.values[:, feature_idx], dtype=np.float32),
        Y=Y,
        feature_names=[a.name for a in features],
        label_names=[content.attributes[j].name for j in label_idx],
        nominal_values={i: list(a.values) for i, a in enumerate(features) if a.values is not None},
        name=path.stem,
        source=str(path),
        task="classification" if Y.dtype == np.uint8 else "regression",
    )
