"""Writes encode-rules.yaml (issue 34; `--copy`: copy-rules.yaml, the same for four tensor copy
rules of cases/tensor/gen/copy_rule.yaml that rested on one to three runs): recorded driver runs for the tensor-map encode rules whose
prediction (the driver refuses the map) rested on one unrecorded corpus case each. Each rule's
case of cases/tensor/gen/reject.yaml is varied in the parameter the rule is about (every
misaligned residue, strides from 2^40 up, boxes from 228 KiB up, ranks out of range, array
lengths off the rank, im2col fields on a tiled map), crossed with element types; a variant is
kept only if the model still classifies it by the same rule (`ptxconform run --reference-only
-v` on the candidates: `python3 gen_encode_rules.py PTXCONFORM [--copy]`). Run with
`run --record`."""
import copy, itertools, re, subprocess, sys, tempfile, yaml

TYPES = ['float32', 'uint8', 'int32', 'float16', 'bfloat16', 'uint64']
COPY = '--copy' in sys.argv
# --wide: im2col-wide-needs-sm100 alone (one recorded run before), written apart so that the
# recorded encode-rules.yaml need not run again.
WIDE = '--wide' in sys.argv
SOURCE, FAMILY, OUT = (('../tensor/gen/copy_rule.yaml', 'tensor.copy', 'copy-rules.yaml') if COPY
                       else ('../tensor/gen/reject.yaml', 'tensormap.encode_rejected',
                             'im2col-wide.yaml' if WIDE else 'encode-rules.yaml'))
base = {c['name'].split('.')[-1]: c for c in yaml.safe_load(open(SOURCE))}

def variant(rule, tag, edit):
    c = copy.deepcopy(base[rule])
    c.pop('observed', None)
    edit(c, c['memory']['tensor_maps'][0]['map'])
    c['name'] = f'probe.{"copy" if COPY else "encode"}.{rule}.{tag}'
    c['description'] = f'{rule}: a variant of {base[rule]["name"]} ({tag})'
    return c

def typed(t):
    return lambda m: m.__setitem__('tensor_data_type', t)

cands = []
for r, t in itertools.product(range(1, 16), TYPES[:2]):
    def e(c, m, r=r, t=t):
        c['memory']['global'][0]['misalign'] = r; m['tensor_data_type'] = t
    cands.append(('global-address-align-16', f'misalign{r}.{t}', e))
for r, t in itertools.product([16, 48, 80, 112], TYPES[:6]):
    def e(c, m, r=r, t=t):
        c['memory']['global'][0]['misalign'] = r; m['tensor_data_type'] = t
    cands.append(('global-address-align-32-interleave-32b', f'misalign{r}.{t}', e))
for s, t in itertools.product([1 << 40, (1 << 40) + 16, 1 << 41, 1 << 44, 1 << 50], TYPES[:5]):
    def e(c, m, s=s, t=t):
        m['global_strides'] = [s]; m['tensor_data_type'] = t
    cands.append(('global-stride-below-2-40', f'stride{s}.{t}', e))
for b1 in range(229, 257):
    def e(c, m, b1=b1):
        m['box_dim'] = [256, b1]
    cands.append(('box-bytes-at-most-228kib', f'box256x{b1}', e))
for n, t in itertools.product(range(6, 10), TYPES[:6]):
    def e(c, m, n=n, t=t):
        m['global_dim'] = [16] + [2] * (n - 1)
        m['global_strides'] = [16 * 2 ** k for k in range(1, n)]
        m['box_dim'] = [16] + [1] * (n - 1)
        m['tensor_data_type'] = 'uint8' if t == 'uint8' else t
    cands.append(('rank-range', f'rank{n}.{t}', e))
for n, t in itertools.product([1, 2, 6, 7], TYPES[:6]):
    def e(c, m, n=n, t=t):
        m['global_dim'] = [8] + [4] * (n - 1)
        m['global_strides'] = [32 * 4 ** k for k in range(0, n - 1)]
        m['tensor_data_type'] = t
    cands.append(('rank-im2col-3-to-5', f'rank{n}.{t}', e))
for (g, b), t in itertools.product([(2, 1), (2, 3), (3, 2), (3, 1), (1, 2)], TYPES[:5]):
    def e(c, m, g=g, b=b, t=t):
        m['global_dim'] = [64] + [3] * (g - 1)
        m['global_strides'] = [256 * 3 ** k for k in range(g - 1)]
        m['box_dim'] = [16] + [2] * (b - 1)
        m['tensor_data_type'] = t
    cands.append(('array-lengths-match-rank', f'dims{g}.box{b}.{t}', e))
for f, t in itertools.product(['channels_per_pixel', 'pixels_per_column', 'both'], TYPES[:6]):
    def e(c, m, f=f, t=t):
        m.pop('channels_per_pixel', None)
        if f in ('channels_per_pixel', 'both'):
            m['channels_per_pixel'] = 8
        if f in ('pixels_per_column', 'both'):
            m['pixels_per_column'] = 4
        m['tensor_data_type'] = t
    cands.append(('fields-for-encode', f'{f}.{t}', e))

TILE = 'cp.async.bulk.tensor.{d}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tm, {{{z}}}], [bar]'
IM2COL = 'cp.async.bulk.tensor.{d}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [dst], [tm, {{{z}}}], [bar], {{{o}}}'

def load(c, text):
    c['program'][1]['ptx'] = text

copy_cands = []
for r, d, t in itertools.product(range(1, 6), range(1, 6), TYPES[:2]):
    if r == d:
        continue
    def e(c, m, r=r, d=d, t=t):
        m['global_dim'] = [64] + [2] * (r - 1)
        m['global_strides'] = [256 * 2 ** k for k in range(r - 1)]
        m['box_dim'] = [16] + [1] * (r - 1)
        m['tensor_data_type'] = t
        load(c, TILE.format(d=d, z=', '.join(['0'] * d)))
    copy_cands.append(('coords-count', f'map{r}.dim{d}.{t}', e))
for r, t in itertools.product(range(3, 6), TYPES[:4]):
    def e(c, m, r=r, t=t):
        m['global_dim'] = [8, 4] + [3] * (r - 2)
        m['global_strides'] = [32 * 4 ** k for k in range(r - 1)]
        m['pixel_box_lower_corner'] = [0] * (r - 2)
        m['pixel_box_upper_corner'] = [0] * (r - 2)
        m['tensor_data_type'] = t
        load(c, TILE.format(d=r, z=', '.join(['0'] * r)))
    copy_cands.append(('mode-matches-map', f'im2col-map{r}.tile.{t}', e))
for r, t in itertools.product(range(3, 6), TYPES[:4]):
    def e(c, m, r=r, t=t):
        m.clear()
        m.update({'encode': 'tiled', 'tensor_data_type': t, 'global_address': 0,
                  'global_dim': [8, 4] + [3] * (r - 2),
                  'global_strides': [32 * 4 ** k for k in range(r - 1)],
                  'box_dim': [8, 2] + [1] * (r - 2), 'interleave': 'none', 'swizzle': 'none',
                  'l2_promotion': 'none', 'oob_fill': 'none'})
        load(c, IM2COL.format(d=r, z=', '.join(['0'] * r), o=', '.join(['0'] * (r - 2))))
    copy_cands.append(('mode-matches-map', f'tiled-map{r}.im2col.{t}', e))
for k, v, t in itertools.product(range(3), [32, 33, 64, 255, 1000, 65535], TYPES[:2]):
    def e(c, m, k=k, v=v, t=t):
        o = ['0'] * 3
        o[k] = str(v)
        m['tensor_data_type'] = t
        load(c, IM2COL.format(d=5, z='0, 0, 0, 0, 0', o=', '.join(o)))
    copy_cands.append(('im2col-offsets-range', f'offset{k}={v}.{t}', e))
BOXES = [('float32', [256, 228]), ('float32', [228, 256]), ('uint8', [256, 228, 4]),
         ('uint8', [255, 228, 4]), ('uint8', [256, 57, 16]), ('uint8', [256, 114, 8]),
         ('uint8', [256, 76, 12]), ('uint16', [256, 228, 2]), ('bfloat16', [256, 114, 4]),
         ('float16', [128, 228, 4]), ('float64', [128, 228]), ('float64', [228, 128]),
         ('int32', [128, 228, 2]), ('uint64', [64, 57, 8]), ('float32', [256, 57, 4]),
         ('float32', [64, 228, 4]), ('uint8', [128, 228, 8]), ('int32', [256, 76, 3]),
         ('uint16', [128, 228, 4]), ('float32', [256, 227, 1]), ('uint8', [256, 227, 4]),
         ('uint8', [250, 232, 4])]
for t, b in BOXES:
    def e(c, m, t=t, b=b):
        n = len(b)
        m['tensor_data_type'] = t
        m['box_dim'] = b
        m['global_dim'] = [256] * n
        size = {'uint8': 1, 'uint16': 2, 'float16': 2, 'bfloat16': 2, 'float32': 4, 'int32': 4,
                'float64': 8, 'uint64': 8}[t]
        m['global_strides'] = [256 * size * 256 ** k for k in range(n - 1)]
        c['memory']['global'][0]['size'] = 256 * size * 256 ** (n - 1)
        load(c, TILE.format(d=n, z=', '.join(['0'] * n)))
    copy_cands.append(('box-fits-shared-memory', f'{t}.box{"x".join(map(str, b))}', e))
wide_cands = []
for t, sw, mode, ch in itertools.product(TYPES, ['64b', '128b'], ['w', 'w128'], [8, 16, 32]):
    def e(c, m, t=t, sw=sw, mode=mode, ch=ch):
        m['tensor_data_type'] = t
        m['swizzle'] = sw
        m['mode'] = mode
        m['channels_per_pixel'] = ch
    wide_cands.append(('im2col-wide-needs-sm100', f'{t}.{sw}.{mode}.c{ch}', e))
if COPY:
    cands = copy_cands
elif WIDE:
    cands = wide_cands

cases = [variant(r, tag, e) for r, tag, e in cands]
with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as f:
    yaml.safe_dump(cases, f, sort_keys=False)
out = subprocess.run([sys.argv[1], 'run', f.name, '--reference-only', '-v', '--out',
                      tempfile.mkdtemp()], capture_output=True, text=True).stdout
kept = []
for c in cases:
    rule = c['name'].split('.')[2]
    line = next((l for l in out.splitlines() if f": {c['name']}:" in l), '')
    if f'{FAMILY}:{rule} ' in line:
        kept.append(c)
with open(OUT, 'w') as f:
    f.write(f'# Generated by gen_encode_rules.py {" ".join(sys.argv[2:])}; observations recorded by '
            '`run --record`.\n')
    yaml.safe_dump(kept, f, sort_keys=False, width=100)
from collections import Counter
print(len(cases), len(kept), Counter(c['name'].split('.')[2] for c in kept))
