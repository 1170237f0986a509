"""A small, independent PLY reader for the tests: ASCII and binary_little_endian files,
scalar properties and list properties, read from the header's declarations alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np

TYPES = {
    "char": "i1",
    "uchar": "u1",
    "short": "i2",
    "ushort": "u2",
    "int": "i4",
    "uint": "u4",
    "float": "f4",
    "double": "f8",
}


def read_ply(path) -> tuple[dict, dict[str, dict[str, list]]]:
    """(header, data): header has 'format', 'comments' and 'elements' (name, count,
    [(property, type or ('list', count type, item type))]); data maps element name ->
    property name -> list of values (a list of lists for list properties)."""
    raw = Path(path).read_bytes()
    end = raw.index(b"end_header\n") + len(b"end_header\n")
    lines = raw[:end].decode("ascii").splitlines()
    assert lines[0] == "ply", lines[0]
    header = {"format": None, "comments": [], "elements": []}
    for line in lines[1:-1]:
        words = line.split()
        if words[0] == "format":
            assert words[2] == "1.0"
            header["format"] = words[1]
        elif words[0] == "comment":
            header["comments"].append(line[len("comment ") :])
        elif words[0] == "element":
            header["elements"].append((words[1], int(words[2]), []))
        elif words[0] == "property" and words[1] == "list":
            header["elements"][-1][2].append((words[4], ("list", words[2], words[3])))
        elif words[0] == "property":
            assert words[1] in TYPES, words[1]
            header["elements"][-1][2].append((words[2], words[1]))
        else:
            raise AssertionError(f"unexpected header line {line!r}")
    body = raw[end:]
    if header["format"] == "ascii":
        data = _read_ascii(header, body.decode("ascii"))
    else:
        assert header["format"] == "binary_little_endian", header["format"]
        data = _read_binary(header, body)
    return header, data


def _read_ascii(header, text):
    tokens = iter(text.split())
    data = {}
    for name, count, properties in header["elements"]:
        columns = {p: [] for p, _ in properties}
        for _ in range(count):
            for prop, kind in properties:
                if isinstance(kind, tuple):
                    n = int(next(tokens))
                    columns[prop].append([_parse(next(tokens), kind[2]) for _ in range(n)])
                else:
                    columns[prop].append(_parse(next(tokens), kind))
        data[name] = columns
    assert next(tokens, None) is None, "data left after the last element"
    return data


def _parse(token, kind):
    return float(token) if kind in ("float", "double") else int(token)


def _read_binary(header, body):
    offset, data = 0, {}
    for name, count, properties in header["elements"]:
        columns = {p: [] for p, _ in properties}
        for _ in range(count):
            for prop, kind in properties:
                if isinstance(kind, tuple):
                    n = int(np.frombuffer(body, "<" + TYPES[kind[1]], 1, offset)[0])
                    offset += np.dtype(TYPES[kind[1]]).itemsize
                    item = np.dtype("<" + TYPES[kind[2]])
                    columns[prop].append(np.frombuffer(body, item, n, offset).tolist())
                    offset += n * item.itemsize
                else:
                    item = np.dtype("<" + TYPES[kind])
                    columns[prop].append(np.frombuffer(body, item, 1, offset)[0].item())
                    offset += item.itemsize
        data[name] = columns
    assert offset == len(body), f"{len(body) - offset} bytes left after the last element"
    return data
