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


# One validator per schema, its schema checked once: jsonschema.validate()
# checks the schema again on every call, which for a trace of a few
# hundred lines was seconds (tests/approval/tty.sh: 5.7 s of its 8).
def schema(name):
    if name not in schemas:
        with open("%s/%s.schema.json" % (sd, name)) as f:
            s = json.load(f)
        cls = jsonschema.validators.validator_for(s)
        cls.check_schema(s)
        schemas[name] = cls(s)
    return schemas[name]


bad = 0
for fn in sys.argv[2:]:
    try:
        if fn.endswith(".jsonl"):
            with open(fn) as f:
                for i, line in enumerate(f, 1):
                    schema("trace").validate(json.loads(line))
        elif fn.endswith(".outcome.json"):
            with open(fn) as f:
                schema("outcome").validate(json.load(f))
        else:
            with open(fn) as f:
                schema("report").validate(json.load(f))
    except Exception as e:  # one line per bad file
        print("schema_check: %s: %s" % (fn, str(e).splitlines()[0]), file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
