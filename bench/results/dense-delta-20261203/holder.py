"""Start a throwaway server, load N dense records into one Scope, leave it up until the flag file goes."""
import pickle, sys, time, os
from datetime import UTC, datetime
from bench.dense_scope import load_dense
from graphmem import Memory
from graphmem.db.server import EphemeralServer
N = int(sys.argv[1]); flag = sys.argv[2]
now = datetime(2026, 6, 1, 12, tzinfo=UTC)
with EphemeralServer(heap="2g", pagecache_mb=1024, timeout_s=900) as server:
    a = Memory.connect(server.settings, start_if_needed=False)
    print("load", load_dense(a, {"tenant": "t001", "project": "dense"}, N, now), flush=True)
    a.close()
    with open(flag, "wb") as f:
        pickle.dump(server.settings, f)
    while os.path.exists(flag):
        time.sleep(1)
print("stopped", flush=True)
