"""Against the holder's server: rounds of retrieve-only and write-then-retrieve; prints JSON."""
import json, pickle, random, sys, time
from datetime import UTC, datetime
from bench.dense_scope import dense_state, dense_record
from graphmem import Memory, Principal
settings = pickle.load(open(sys.argv[1], "rb")); tag = sys.argv[2]; R = int(sys.argv[3])
now = datetime(2026, 6, 1, 12, tzinfo=UTC)
P = Principal(tenants=frozenset({"t001"}))
scope = {"tenant": "t001", "project": "dense"}
a = Memory.connect(settings, start_if_needed=False, ensure_schema=False)
rng = random.Random(11)
def read():
    t0 = time.perf_counter(); a.retrieve(dense_state(scope, rng), principal=P, now=now)
    return (time.perf_counter() - t0) * 1000
def write(i):
    a.write(dense_record(f"{tag}-{time.time_ns()}-{i}", scope, rng, now), now=now)
for i in range(6):
    read(); write(i); read()
only, after = [], []
for i in range(R):  # interleaved so drift falls on both
    only.append(read())
    write(100 + i)
    after.append(read())
q = lambda x, p: sorted(x)[int(p * (len(x) - 1))]
out = {"tag": tag, "only_p50": q(only, .5), "after_p50": q(after, .5), "only_p95": q(only, .95), "after_p95": q(after, .95)}
out["ratio_p50"] = out["after_p50"] / out["only_p50"]
print(json.dumps(out), flush=True)
a.close()
