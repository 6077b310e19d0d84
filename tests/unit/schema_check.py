#!/usr/bin/env python3
"""Validate capwatch output against its JSON Schemas.

    schema_check.py [--schemas DIR] [--report REPORT.json] [--trace TRACE.jsonl]
                    [--names NAMES.json]

--report   one report document against schemas/report.schema.json
--trace    every line of a JSONL trace against schemas/trace.schema.json, plus
           what a per-line schema cannot say: the header comes first and only
           once, "seq" runs 1, 2, 3... over the other lines, a summary is last
--names    the vocabulary the C library prints (gen_samples' names.json) must
           equal the schemas' enumerations, so the two cannot drift apart

Beyond the schemas, every "<key>_hex" sibling is checked against its "<key>":
the string must be the hex bytes with each byte of an invalid UTF-8 sequence
(and each NUL) replaced by U+FFFD, capwatch's one escaping rule.

Usable on real capwatch output. Exit status: 0 valid, 1 invalid, 2 usage or
unreadable input, 77 when the python3 jsonschema module is missing.
"""
import argparse
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: python3 module jsonschema is missing (apt-get install python3-jsonschema)",
          file=sys.stderr)
    sys.exit(77)


def default_schema_dir():
    top = os.environ.get("top_srcdir")
    if top:
        return os.path.join(top, "schemas")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schemas")


def load_schema(d, name):
    path = os.path.join(d, name)
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return schema, cls(schema)


def reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def loads_strict(text):
    # Python's json accepts NaN/Infinity and duplicate keys; JSON does not.
    def no_dups(pairs):
        seen = {}
        for k, v in pairs:
            if k in seen:
                raise ValueError("duplicate key %r" % k)
            seen[k] = v
        return seen
    return json.loads(text, parse_constant=reject_constant, object_pairs_hook=no_dups)


def where(path):
    out = ""
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else ("." if out else "") + str(p)
    return out or "(top)"


def capwatch_sanitize(raw):
    """The replacement rule of policy/jbuf.c: per byte, not per maximal subpart."""
    out, i, n = [], 0, len(raw)
    while i < n:
        c = raw[i]
        if c < 0x80:
            out.append("\ufffd" if c == 0 else chr(c))
            i += 1
            continue
        ln = 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
        if ln and i + ln <= n:
            try:
                out.append(raw[i:i + ln].decode("utf-8"))
                i += ln
                continue
            except UnicodeDecodeError:
                pass
        out.append("\ufffd")
        i += 1
    return "".join(out)


def valid_utf8(raw):
    try:
        raw.decode("utf-8")  # strict: rejects overlongs, surrogates, > U+10FFFF
        return True
    except UnicodeDecodeError:
        return False


def check_hex_pairs(node, path, errs):
    """Every K_hex must decode to bytes whose sanitised form is K."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k.endswith("_hex"):
                base = k[:-4]
                if base not in node:
                    errs.append("%s: %s without %s" % (where(path), k, base))
                    continue
                plain = node[base]
                pairs = []
                if isinstance(v, list) and isinstance(plain, list) and len(v) == len(plain):
                    pairs = [(h, s, path + [base, i]) for i, (h, s) in enumerate(zip(v, plain))]
                elif isinstance(v, str) and isinstance(plain, str):
                    pairs = [(v, plain, path + [base])]
                else:
                    errs.append("%s: %s does not match the shape of %s" % (where(path), k, base))
                for h, s, p in pairs:
                    if h is None:
                        continue
                    try:
                        raw = bytes.fromhex(h)
                    except (ValueError, TypeError):
                        errs.append("%s: not hex: %r" % (where(p) + "_hex", h))
                        continue
                    if capwatch_sanitize(raw) != s:
                        errs.append("%s: string does not match its _hex bytes" % where(p))
                    if b"\0" not in raw and valid_utf8(raw):
                        errs.append("%s: _hex present although the bytes are valid UTF-8" % where(p))
            check_hex_pairs(v, path + [k], errs)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            check_hex_pairs(v, path + [i], errs)


def validate(validator, doc, errs, prefix):
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        errs.append("%s%s: %s" % (prefix, where(list(e.absolute_path)), e.message))
    n = len(errs)
    check_hex_pairs(doc, [], errs)
    for i in range(n, len(errs)):
        errs[i] = prefix + errs[i]


# Long arrays of records (a fuzz run's report holds tens of thousands of
# denials: 17 MB, 8 s of jsonschema) are validated exactly but faster: the
# document with each such array cut to its first and last 300 records,
# then every other record property by property, each distinct value of a
# property once. That is the same verdict when the array's schema is only
# {"type": "array", "items": {"$ref": record}} and the record's is an
# object of properties with no keyword across them (type, required,
# additionalProperties false, properties: checked here; any other schema
# is validated whole).
KEEP = 300
RECORD_KEYS = {"type", "required", "additionalProperties", "properties", "description"}


def record_arrays(schema, doc):
    out = {}
    defs = schema.get("definitions", {})
    for key, ps in schema.get("properties", {}).items():
        if ps.get("type") != "array" or set(ps) - {"type", "items", "description"}:
            continue
        ref = (ps.get("items") or {}).get("$ref", "")
        if set(ps.get("items") or {}) != {"$ref"} or not ref.startswith("#/definitions/"):
            continue
        rec = defs.get(ref[len("#/definitions/"):])
        if not rec or set(rec) - RECORD_KEYS or rec.get("type") != "object" or \
                rec.get("additionalProperties") is not False:
            continue
        arr = doc.get(key) if isinstance(doc, dict) else None
        if isinstance(arr, list) and len(arr) > 2 * KEEP:
            out[key] = rec
    return out


def validate_records(v, schema, key, rec, arr, errs, prefix):
    props, req = rec.get("properties", {}), set(rec.get("required", []))
    cls = type(v)
    checkers, seen = {}, set()
    for i in range(KEEP, len(arr) - KEEP):
        x = arr[i]
        at = "%s%s[%d]" % (prefix, key, i)
        if not isinstance(x, dict):
            errs.append("%s: not an object" % at)
            continue
        for k in sorted(req - set(x)):
            errs.append("%s: %r is a required property" % (at, k))
        for k, val in x.items():
            if k not in props:
                errs.append("%s: additional property %r" % (at, k))
                continue
            sig = (k, json.dumps(val, sort_keys=True))
            if sig in seen:
                continue
            seen.add(sig)
            if k not in checkers:
                checkers[k] = cls(dict(props[k], definitions=schema.get("definitions", {})))
            for e in checkers[k].iter_errors(val):
                sub = list(e.absolute_path)
                errs.append("%s.%s%s: %s" % (at, k, where(sub) if sub else "", e.message))


def check_report(path, schema_dir, errs):
    schema, v = load_schema(schema_dir, "report.schema.json")
    with open(path, "rb") as f:
        data = f.read()
    try:
        doc = loads_strict(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        errs.append("%s: not a JSON document in UTF-8: %s" % (path, e))
        return
    long_arrays = record_arrays(schema, doc)
    if not long_arrays:
        validate(v, doc, errs, "%s: " % path)
        return
    head = dict(doc)
    for key in long_arrays:
        head[key] = doc[key][:KEEP] + doc[key][-KEEP:]
    # (paths into a cut array count from its head)
    for e in sorted(v.iter_errors(head), key=lambda e: list(e.absolute_path)):
        errs.append("%s: %s: %s" % (path, where(list(e.absolute_path)), e.message))
    for key, rec in long_arrays.items():
        validate_records(v, schema, key, rec, doc[key], errs, "%s: " % path)
    n = len(errs)
    check_hex_pairs(doc, [], errs)
    for i in range(n, len(errs)):
        errs[i] = "%s: " % path + errs[i]


def check_trace(path, schema_dir, errs):
    _, v = load_schema(schema_dir, "trace.schema.json")
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        errs.append("%s: last line is not terminated (truncated trace?)" % path)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        errs.append("%s: empty trace" % path)
        return
    expect_seq, saw_summary = 1, False
    for no, raw in enumerate(lines, 1):
        pre = "%s:%d: " % (path, no)
        try:
            ev = loads_strict(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            errs.append(pre + "not a JSON line in UTF-8: %s" % e)
            continue
        if any(b < 0x20 for b in raw):
            errs.append(pre + "raw control character in the line")
        if not isinstance(ev, dict):
            errs.append(pre + "not a JSON object")
            continue
        validate(v, ev, errs, pre)
        t = ev.get("type")
        if (no == 1) != (t == "header"):
            errs.append(pre + ("the first line must be the header" if no == 1
                               else "header after the first line"))
        if saw_summary:
            errs.append(pre + "line after the summary")
        if t == "summary":
            saw_summary = True
        if t != "header" and isinstance(ev.get("seq"), int):
            if ev["seq"] != expect_seq:
                errs.append(pre + "seq %d, expected %d" % (ev["seq"], expect_seq))
            expect_seq = ev["seq"] + 1


def check_names(path, schema_dir, errs):
    with open(path, encoding="utf-8") as f:
        names = json.load(f)
    rs, _ = load_schema(schema_dir, "report.schema.json")
    ts, _ = load_schema(schema_dir, "trace.schema.json")
    pairs = [
        ("capabilities", rs, "capabilityKind"), ("capabilities", ts, "capabilityKind"),
        ("operations", ts, "opKind"),
        ("verdicts", rs, "verdict"), ("verdicts", ts, "verdict"),
        ("sources", rs, "source"), ("sources", ts, "source"),
        ("nextActions", rs, "nextAction"), ("nextActions", ts, "nextAction"),
    ]
    for key, schema, d in pairs:
        want = names.get(key)
        have = schema["definitions"][d]["enum"]
        if want != have:
            errs.append("%s: %s.definitions.%s.enum is %s, the library names %s" %
                        (path, schema.get("title", "schema"), d, have, want))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schemas", default=default_schema_dir(), help="directory of *.schema.json")
    ap.add_argument("--report", action="append", default=[], help="report file (repeatable)")
    ap.add_argument("--trace", action="append", default=[], help="trace file (repeatable)")
    ap.add_argument("--names", help="names.json written by gen_samples")
    ap.add_argument("-q", "--quiet", action="store_true", help="print nothing when valid")
    a = ap.parse_args()
    if not (a.report or a.trace or a.names):
        ap.error("nothing to check: give --report, --trace or --names")
    errs = []
    try:
        for r in a.report:
            check_report(r, a.schemas, errs)
        for t in a.trace:
            check_trace(t, a.schemas, errs)
        if a.names:
            check_names(a.names, a.schemas, errs)
    except OSError as e:
        print("schema_check: %s" % e, file=sys.stderr)
        return 2
    except (ValueError, jsonschema.exceptions.SchemaError) as e:
        print("schema_check: bad schema or names file: %s" % e, file=sys.stderr)
        return 2
    for e in errs[:200]:
        print("INVALID: " + e, file=sys.stderr)
    if len(errs) > 200:
        print("INVALID: ... %d more" % (len(errs) - 200), file=sys.stderr)
    if errs:
        return 1
    if not a.quiet:
        print("valid: %s" % " ".join(a.report + a.trace + ([a.names] if a.names else [])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
