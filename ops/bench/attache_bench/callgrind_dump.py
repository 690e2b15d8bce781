"""Reading a callgrind dump (callgrind.py) without callgrind_annotate: each function's own instructions, the calls
between functions, and Attache's functions each charged with the library and runtime work they called.

callgrind_annotate cannot be asked for the first: a dump taken while threads run lists their calls still under way as
`calls=0`, and callgrind_annotate adds those calls' instructions to the caller's own, so a thread's entry function
would count everything it ran twice. Nor does its inclusive view say much about Swift: an async function's parts run
as separate jobs, so "inclusive" stops at each suspension, and the stdlib generics specialised into the binary
(Dictionary lookups, Array growth) show up on their own instead of under the code that used them."""
import collections
import os
import re

ROUNDS = 8  # how far up the calls library work is charged (malloc ← swift_allocObject ← a closure ← …)
SWIFT_SYMBOL = re.compile(r"\$s(\d+)")


class Dump:
    """One dump: `own[(object, function)]` instructions run in the function itself, `calls[callee][caller]` the
    instructions of the calls between them (the callee's inclusive cost for those calls). Source files are not
    read: a function's module comes from its mangled name."""

    def __init__(self, path):
        self.own = collections.Counter()
        self.calls = collections.defaultdict(collections.Counter)
        names = {}
        obj = function = callee_obj = callee = None
        call_cost_next = False
        with open(path) as f:
            for line in f:
                if call_cost_next:
                    call_cost_next = False
                    fields = line.split()
                    if len(fields) > 1 and function:
                        self.calls[(callee_obj or obj, callee)][(obj, function)] += int(fields[1])
                    callee_obj = None
                    continue
                if line[0].isdigit() or line[0] in "+-*":
                    fields = line.split()
                    if len(fields) > 1 and function:
                        self.own[(obj, function)] += int(fields[1])
                elif line.startswith("ob="):
                    obj = _name(names, "ob", line[3:])
                elif line.startswith("fn="):
                    function = _name(names, "fn", line[3:])
                elif line.startswith("cob="):
                    callee_obj = _name(names, "ob", line[4:])
                elif line.startswith("cfn="):
                    callee = _name(names, "fn", line[4:])
                elif line.startswith("calls="):
                    call_cost_next = True

    def own_by_object(self):
        """Each object's own instructions."""
        totals = collections.Counter()
        for (obj, _), instructions in self.own.items():
            totals[obj] += instructions
        return totals

    def charged(self, is_attache):
        """Attache's functions (`is_attache(object, function)`), each with its own instructions plus those of the
        other code it called, charged up the calls in proportion to each caller's share of them. What never
        reaches an Attache function (librdkafka's and libcurl's threads, a thread's own loop) stays under
        ("", function)."""
        charged = collections.Counter()
        waiting = collections.Counter()
        for node, instructions in self.own.items():
            (charged if is_attache(*node) else waiting)[node] += instructions
        for _ in range(ROUNDS):
            onward = collections.Counter()
            for node, instructions in waiting.items():
                callers = {caller: share for caller, share in self.calls.get(node, {}).items() if caller != node}
                total = sum(callers.values())
                if not total:
                    charged[("", node[1])] += instructions
                    continue
                for caller, share in callers.items():
                    (charged if is_attache(*caller) else onward)[caller] += instructions * share / total
            waiting = onward
        for node, instructions in waiting.items():
            charged[("", node[1])] += instructions
        return charged


def swift_module(symbol):
    """The module of a mangled Swift symbol (`$s6Worker…` → Worker), or None."""
    match = SWIFT_SYMBOL.match(symbol or "")
    return symbol[match.end():match.end() + int(match.group(1))] if match else None


def attache_modules(sources):
    """The Swift modules Attache's sources define: the directories of `Sources/` without a C module map."""
    return {name for name in os.listdir(sources)
            if not os.path.exists(os.path.join(sources, name, "module.modulemap"))}


def _name(names, kind, text):
    """A name given as `(id) name` the first time and `(id)` after (callgrind's name compression)."""
    text = text.strip()
    if text.startswith("("):
        key, _, name = text.partition(")")
        if name.strip():
            names[(kind, key)] = name.strip()
        return names.get((kind, key), text)
    return text
