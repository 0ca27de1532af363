import json, sys
a = {(r['file'], r['case']): r['verdict'] for r in json.load(open(sys.argv[1]))['results']}
b = {(r['file'], r['case']): r['verdict'] for r in json.load(open(sys.argv[2]))['results']}
diff = [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
print(f"{len(a)} vs {len(b)} cases, {len(diff)} verdicts differ")
for d in diff[:30]: print(d)
