"""Reference oracle: the official BLAKE3 implementation (the `blake3` Python package).

Reads a request file: a JSON header line, then the concatenated message bytes. Each request is
{"len": n, "key": hex|null, "context": str|null, "length": n, "seek": "decimal"}; prints one hex per line.
"""
import json
import sys

import blake3

with open(sys.argv[1], "rb") as f:
    requests = json.loads(f.readline())
    for r in requests:
        data = f.read(r["len"])
        if r.get("key") is not None:
            h = blake3.blake3(data, key=bytes.fromhex(r["key"]))
        elif r.get("context") is not None:
            h = blake3.blake3(data, derive_key_context=r["context"])
        else:
            h = blake3.blake3(data)
        print(h.digest(length=r["length"], seek=int(r["seek"])).hex())
