#!/usr/bin/env bash
# One line per CUDA kernel of a build: its mangled name and the md5 of its
# SASS instructions (addresses and encodings dropped), so that two builds'
# kernels can be compared without a GPU: a kernel whose line is unchanged
# is the one an earlier measurement timed.
#
#   bash tools/sass-digest.sh BUILD_DIR > digests.txt
#   LC_ALL=C join old.txt new.txt | awk '$2 != $3'   (kernels whose SASS changed)
#
# The join is by mangled name: a template parameter added to a kernel
# renames every instantiation, and the join then matches none of them and
# reports no change at all. Normalise the new names first (session 26 added
# CLUSTER, default 1: sed 's/ELi1EEv7wg_args/EEv7wg_args/' new.txt), and
# check that the join's line count is the old file's.
#
# A kernel parameter appended to a struct moves the parameters after it in
# the constant bank, which changes every kernel's digest. CONVT_SASS_PARAM_SHIFT
# =FROM:BY:NAME (hex, hex, a regex on the mangled name) digests, in the
# kernels NAME matches, the offsets c[0x0][X] with X >= FROM as X - BY, so
# that the new build joins the old one (session 28 appended 16 bytes to
# wg_args, 280 bytes at 0x210: CONVT_SASS_PARAM_SHIFT=0x338:0x10:7wg_args
# on the new build).
#
# cuobjdump: tools/find-cuobjdump.sh.
set -euo pipefail
build=${1:?usage: tools/sass-digest.sh BUILD_DIR}
cuobjdump=$(bash "$(dirname "$0")/find-cuobjdump.sh")
export PATH="$(dirname "$cuobjdump"):$PATH"
find "$build" -name '*.cu.o' | sort | while read -r obj; do "$cuobjdump" -sass "$obj" 2>/dev/null; done |
  CONVT_SASS_PARAM_SHIFT=${CONVT_SASS_PARAM_SHIFT:-} python3 -c '
import hashlib, os, re, sys
digests, name, body = {}, None, []
shift = os.environ["CONVT_SASS_PARAM_SHIFT"]
if shift:
    first, by, shifted = shift.split(":", 2)
    first, by = int(first, 16), int(by, 16)
    def unshift(m):
        x = int(m.group(1), 16)
        return "c[0x0][0x%x]" % (x - by if x >= first else x)
def flush():
    if name:
        digests[name] = hashlib.md5("\n".join(body).encode()).hexdigest()
for line in sys.stdin:
    m = re.search(r"Function : (\S+)", line)
    if m:
        flush(); name, body = m.group(1), []
        continue
    m = re.match(r"\s*/\*[0-9a-f]+\*/\s*(.*?)\s*/\*\s*0x[0-9a-f]+\s*\*/", line)
    if name and m:
        ins = m.group(1)
        if shift and re.search(shifted, name):
            ins = re.sub(r"c\[0x0\]\[0x([0-9a-f]+)\]", unshift, ins)
        body.append(ins)
flush()
for n in sorted(digests):  # byte order: LC_ALL=C join reads it
    print(n, digests[n])
'
