"""This thread's chunk size for ``prange`` loops, set from inside a compiled kernel.

Numba's own ``set_parallel_chunksize`` reaches the threading layer through a ctypes pointer when
called from a kernel, which makes the kernel uncacheable (every process would compile it again).
Here the same two functions of the threading layer are called by name, as Numba's parfor code
does, so the kernel's machine code can be cached.
"""
from __future__ import annotations

import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

numba.get_parallel_chunksize()  # starts the threading layer, which registers the two symbols


@intrinsic
def swap_parallel_chunksize(typingctx, size):
    """Set the calling thread's parallel chunk size to ``size``; return the previous one."""
    if not isinstance(size, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        uintp = context.get_value_type(types.uintp)
        get = cgutils.get_or_insert_function(builder.module, ir.FunctionType(uintp, []), "get_parallel_chunksize")
        put = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [uintp]),
                                             "set_parallel_chunksize")
        previous = builder.call(get, [])
        builder.call(put, [context.cast(builder, args[0], signature.args[0], types.uintp)])
        return previous

    return types.uintp(size), codegen
