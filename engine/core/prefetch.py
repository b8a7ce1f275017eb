"""Software prefetch for the walk's gathers (LLVM's ``llvm.prefetch`` through a Numba intrinsic).

The sweep (:mod:`.sweep`) visits an attribute's entries in the order of their values, so the
examples whose weights and statistics it reads come in random order; at N = 10^5 those rows are
not in the L2 cache, and the loads waiting for them took most of a refinement step in a perf
profile of the scale benchmark.  The walk knows which example comes a few entries ahead and asks
for its rows early.
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

CACHE_LINE = 64


@intrinsic
def prefetch_row(typingctx, array, row):
    """Ask the cache for ``array[row]`` (a 1-D array's element, or every cache line of a C-contiguous
    2-D array's row).  A hint: no load, no fault, nothing returned."""
    if not isinstance(array, types.Array) or array.ndim > 2 or not isinstance(row, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        ary = context.make_array(arrty)(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        intp = context.get_value_type(types.intp)
        indices = [index] + [ir.Constant(intp, 0)] * (arrty.ndim - 1)
        first = cgutils.get_item_pointer(context, builder, arrty, ary, indices, wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        base = builder.bitcast(first, i8p)
        # read, keep in every level, data cache
        flags = [ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)]
        if arrty.ndim == 1:
            builder.call(fn, [base] + flags)
        else:
            itemsize = context.get_abi_sizeof(context.get_data_type(arrty.dtype))
            n_cols = cgutils.unpack_tuple(builder, ary.shape, 2)[1]
            n_bytes = builder.mul(n_cols, ir.Constant(intp, itemsize))
            with cgutils.for_range_slice(builder, ir.Constant(intp, 0), n_bytes, ir.Constant(intp, CACHE_LINE),
                                         intp) as (offset, _):
                builder.call(fn, [builder.gep(base, [offset])] + flags)
            last = builder.sub(n_bytes, ir.Constant(intp, 1))  # a row that starts within a line ends in one more
            builder.call(fn, [builder.gep(base, [last])] + flags)
        return context.get_dummy_value()

    return types.none(array, row), codegen
