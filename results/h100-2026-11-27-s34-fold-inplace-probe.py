# session 34: how results/h100-2026-11-27-s34-fold-inplace-probe.txt was made from each call's fold-inplace-probe.json:
#   python3 results/h100-2026-11-27-s34-fold-inplace-probe.py fold-inplace-probe.json
import json, sys, collections
d = json.load(open(sys.argv[1]))
best = collections.defaultdict(dict)
for r in d['records']:
    if r['status'] != 'ok': continue
    nm = r['shape']['name'] if isinstance(r['shape'], dict) else r['shape']
    t = r['timing']['median_ms']
    v = r['variant'].replace('polyphase_wgmma_','').replace('_tf32','')
    if v not in best[nm] or t < best[nm][v][0]:
        best[nm][v] = (t, r['launch_key'])
for nm, b in best.items():
    vend = min([b[v][0] for v in b if 'cudnn' in v] or [float('nan')])
    f = b.get('fold', (float('nan'),''))[0]; i = b.get('fold_inplace', (float('nan'),''))
    print(f"{nm:24s} fold {f:.4f} inplace {i[0]:.4f} ({(i[0]/f-1)*100:+.1f}%) cudnn {vend:.4f} ratio {vend/min(f, i[0] if i[0]==i[0] else 9):.2f}x  {i[1]}")
