"""schema_check.py SCHEMA_DIR FILE...: validate reports (*.json) against
report.schema.json and traces (*.jsonl) line by line against
trace.schema.json; outcomes (*.outcome.json) against outcome.schema.json."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("schema_check: python3-jsonschema missing", file=sys.stderr)
    sys.exit(77)

sd = sys.argv[1]
schemas = {}


def schema(name):
    if name not in schemas:
        with open("%s/%s.schema.json" % (sd, name)) as f:
            schemas[name] = json.load(f)
    return schemas[name]


bad = 0
for fn in sys.argv[2:]:
    try:
        if fn.endswith(".jsonl"):
            with open(fn) as f:
                for i, line in enumerate(f, 1):
                    jsonschema.validate(json.loads(line), schema("trace"))
        elif fn.endswith(".outcome.json"):
            with open(fn) as f:
                jsonschema.validate(json.load(f), schema("outcome"))
        else:
            with open(fn) as f:
                jsonschema.validate(json.load(f), schema("report"))
    except Exception as e:  # one line per bad file
        print("schema_check: %s: %s" % (fn, str(e).splitlines()[0]), file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
