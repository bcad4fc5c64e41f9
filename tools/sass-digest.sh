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
# cuobjdump: tools/find-cuobjdump.sh.
set -euo pipefail
build=${1:?usage: tools/sass-digest.sh BUILD_DIR}
cuobjdump=$(bash "$(dirname "$0")/find-cuobjdump.sh")
export PATH="$(dirname "$cuobjdump"):$PATH"
find "$build" -name '*.cu.o' | sort | while read -r obj; do "$cuobjdump" -sass "$obj" 2>/dev/null; done |
  python3 -c '
import hashlib, re, sys
digests, name, body = {}, None, []
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
        body.append(m.group(1))
flush()
for n in sorted(digests):  # byte order: LC_ALL=C join reads it
    print(n, digests[n])
'
