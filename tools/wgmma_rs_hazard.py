#!/usr/bin/env python3
"""Register-A hazards of wgmma in SASS, without a GPU.

wgmma's register-A form (HGMMA ... Rd, Ra, gdesc[...]) reads its A
fragments (Ra .. Ra+3) until the group is done; the PTX ISA makes writing
them before a wgmma.wait_group covering the group undefined, and ptxas
does not keep other values out of them (session 34: in
polyphase_wgmma_fold_inplace_tf32's first form it loaded the next group's
fragments, and computed their addresses, in the registers the running
group read). This walks each kernel's SASS in address order, keeps the
groups in flight (HGMMA adds its A registers to the open group, the one
flagged gsb0 closes it; WARPGROUP.DEPBAR.LE gsb0, N keeps the newest N)
over the kernel's basic blocks, every path's groups joined at a block's
start until nothing changes (so a loop's next iteration sees the groups
its last left running, and a branch's other side does not see this
one's), and reports every instruction that writes a register an
in-flight group reads.

    python3 tools/wgmma_rs_hazard.py OBJECT_OR_SASS_FILE... [--filter REGEX]

An object (.o, .cubin) is read through cuobjdump -sass
(tools/find-cuobjdump.sh); a text file is taken as cuobjdump's output.
Prints one line per kernel (its HGMMA with A in registers, hazards found)
and the first hazards of each; exits 1 if any kernel has one.
"""
import re
import subprocess
import sys

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z0-9_.]+)\s*(.*?)\s*;")
REG = re.compile(r"\bR(\d+)\b")
# opcodes whose first operand is no register written
NO_DEST = ("ST", "STS", "STG", "STL", "RED", "BRA", "BAR", "SYNCS", "WARPGROUP", "HGMMA", "MEMBAR",
           "FENCE", "DEPBAR", "NOP", "EXIT", "RET", "CALL", "ARRIVES", "LDGSTS", "UTMALDG", "UTMASTG",
           "UBLKCP", "CCTL", "ERRBAR", "WARPSYNC", "BSSY", "BSYNC", "YIELD", "BPT", "KILL", "ISETP",
           "FSETP", "PLOP3", "PSETP", "R2UR", "S2UR", "VOTEU", "UISETP", "ELECT", "ACQBULK", "REDUX")


def dest_regs(op, operands):
    """The general registers an instruction writes (none for stores,
    barriers, predicates and uniform registers)."""
    base = op.split(".")[0]
    if base in NO_DEST or base.startswith("U") or not operands:
        return set()
    first = operands.split(",")[0].strip()
    m = re.fullmatch(r"R(\d+)", first)
    if not m:
        return set()
    n = 1
    if ".64" in op or ".WIDE" in op:
        n = 2
    if ".128" in op:
        n = 4
    r = int(m.group(1))
    return set(range(r, r + n))


def hgmma_a(operands):
    """The A registers of an HGMMA in register-A form, else None."""
    parts = [p.strip() for p in operands.split(",")]
    if len(parts) >= 2 and re.fullmatch(r"R\d+", parts[1]):
        r = int(parts[1][1:])
        return set(range(r, r + 4))
    return None


def step(state, insn, hazards=None):
    """One instruction's effect on the groups in flight: state is (closed,
    open): the committed groups, oldest first, each a frozenset of A
    registers, and the group being issued. Records a hazard where the
    instruction writes a register an in-flight group reads."""
    closed, open_ = state
    addr, _, op, operands = insn
    if op.startswith("HGMMA"):
        a = hgmma_a(operands)
        if a:
            open_ = open_ | a
        if "gsb0" in operands:
            closed, open_ = closed + (frozenset(open_),), frozenset()
    elif op.startswith("WARPGROUP.DEPBAR"):
        m = re.search(r"gsb0,\s*0x([0-9a-f]+)", operands)
        keep = int(m.group(1), 16) if m else 0
        closed = closed[len(closed) - keep:] if keep else ()
    elif hazards is not None:
        w = dest_regs(op, operands)
        for g in closed + (open_,):
            if w & g:
                hazards.append((addr, op, operands, sorted(w & g)))
                break
    return closed, open_


def merge(a, b):
    """Two paths' states joined: group i from the newest is either's."""
    ca, cb = a[0], b[0]
    n = max(len(ca), len(cb))
    ca, cb = (frozenset(),) * (n - len(ca)) + ca, (frozenset(),) * (n - len(cb)) + cb
    return tuple(x | y for x, y in zip(ca, cb)), a[1] | b[1]


def analyse(insns):
    """The hazards of one kernel: its basic blocks walked to a fixpoint of
    the groups that may be in flight at each block's start (every path's
    joined), then once more to report."""
    index = {x[0]: k for k, x in enumerate(insns)}

    def target(insn):
        m = re.search(r"0x([0-9a-f]+)", insn[3])
        return index.get(int(m.group(1), 16)) if m else None

    leaders = {0}
    for k, insn in enumerate(insns):
        op = insn[2]
        if op.startswith(("BRA", "EXIT", "RET")):
            leaders.add(k + 1)
            if op.startswith("BRA") and target(insn) is not None:
                leaders.add(target(insn))
    starts = sorted(x for x in leaders if x < len(insns))
    ends = starts[1:] + [len(insns)]

    def successors(b_end):
        last = insns[b_end - 1]
        pred, op = last[1], last[2]
        out = []
        if op.startswith("BRA") and target(last) is not None:
            out.append(target(last))
        if not (op.startswith(("EXIT", "RET")) and not pred) and not (op.startswith("BRA") and not pred):
            if b_end < len(insns):
                out.append(b_end)
        return out

    block_end = dict(zip(starts, ends))
    state_in = {0: ((), frozenset())}
    work = [0]
    while work:
        b = work.pop()
        st = state_in[b]
        for k in range(b, block_end[b]):
            st = step(st, insns[k])
        for nxt in successors(block_end[b]):
            old = state_in.get(nxt)
            new = st if old is None else merge(old, st)
            if new != old:
                state_in[nxt] = new
                work.append(nxt)
    hazards = []
    for b, st in state_in.items():
        for k in range(b, block_end[b]):
            st = step(st, insns[k], hazards)
    return sorted(hazards)


def kernels(text):
    name, insns = None, []
    for line in text.splitlines():
        if "Function : " in line:
            if name:
                yield name, insns
            name, insns = line.split("Function : ", 1)[1].strip(), []
            continue
        m = INSN.search(line)
        if m and name:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3), m.group(4)))
    if name:
        yield name, insns


def sass_of(path):
    if path.endswith((".o", ".cubin")):
        cuobjdump = subprocess.run(["bash", "tools/find-cuobjdump.sh"], capture_output=True, text=True,
                                   check=True).stdout.strip()
        return subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True, check=True).stdout
    with open(path) as f:
        return f.read()


def main(argv):
    flt = None
    if "--filter" in argv:
        k = argv.index("--filter")
        flt = re.compile(argv[k + 1])
        argv = argv[:k] + argv[k + 2:]
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = 0
    for path in argv:
        for name, insns in kernels(sass_of(path)):
            if flt and not flt.search(name):
                continue
            rs = sum(1 for _, _, op, o in insns if op.startswith("HGMMA") and hgmma_a(o))
            if not rs:
                continue
            hazards = analyse(insns)
            print(f"{name} HGMMA-RS {rs} hazards {len(hazards)}")
            for addr, op, o, regs in hazards[:3]:
                print(f"    /*{addr:04x}*/ {op} {o}   writes R{regs} of a running group")
            bad += bool(hazards)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
