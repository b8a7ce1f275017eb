"""Borrowed views: arrays that share another's data without holding a reference to its memory.

Numba counts the references to an array's memory (``NRT_incref``/``NRT_decref``: a call and an atomic
update) where a function inlined into a loop receives the array, and cannot always prove the pair
redundant: in the sweeps of :mod:`.sweep` they took 17 % of a fit (BOOMER, emotions).  The threads of a
refinement step also slice their scratch from one array, so they all updated the same counter.  A
borrowed view has no memory record, so those calls return at once.  It must not outlive what it
borrows from (the caller keeps that alive) and is never returned to Python.
"""
from __future__ import annotations

from numba import types
from numba.extending import intrinsic


def _borrow(context, builder, typ, value):
    if isinstance(typ, types.Array):
        source = context.make_array(typ)(context, builder, value=value)
        view = context.make_array(typ)(context, builder)
        context.populate_array(view, data=source.data, shape=source.shape, strides=source.strides,
                               itemsize=source.itemsize, meminfo=None, parent=None)
        return view._getvalue()
    if isinstance(typ, types.BaseTuple):
        for position, member in enumerate(typ):
            item = _borrow(context, builder, member, builder.extract_value(value, position))
            value = builder.insert_value(value, item, position)
        return value
    context.nrt.incref(builder, typ, value)  # the result is a new reference to anything else
    return value


@intrinsic
def borrowed(typingctx, value):
    """``value`` with every array in it (a tuple's too, nested) replaced by a borrowed view."""
    def codegen(context, builder, signature, args):
        return _borrow(context, builder, signature.args[0], args[0])

    return value(value), codegen
