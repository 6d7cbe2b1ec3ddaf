"""A software prefetch instruction for numba kernels (Sect. 2.2.3's ``_prefetch``).

``prefetch(array, index)`` emits LLVM's ``llvm.prefetch`` for the address of
``array[index]`` (read, high locality, data cache): the CPU may copy that cache line ahead
of use, as the paper's Pentium III code did with assembly prefetch instructions. It never
faults (a prefetch of any address is allowed) and changes no result. :data:`AVAILABLE`
says whether this numba/LLVM accepted the intrinsic; if not, :func:`prefetch` is a no-op
and the "with prefetching" variants equal the plain ones (reported, never hidden).
"""

from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _prefetch(typingctx, arr, idx):  # type: ignore[no-untyped-def]
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        aryty, _ = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # (address, rw = 0 read, locality = 3 keep in all caches, cache type = 1 data)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@nb.njit(cache=True)
def _probe(a):  # type: ignore[no-untyped-def]
    _prefetch(a, 0)
    return a[0]


def _available() -> bool:
    import numpy as np

    try:
        return int(_probe(np.arange(4, dtype=np.int64))) == 0
    except Exception:  # pragma: no cover - depends on the numba / LLVM build
        return False


AVAILABLE = _available()

if AVAILABLE:
    prefetch = _prefetch
else:  # pragma: no cover

    @nb.njit(inline="always")
    def prefetch(arr, idx):  # type: ignore[no-untyped-def]
        return None
