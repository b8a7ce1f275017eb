"""engine.threads: the OpenMP spin default is set on import and never overrides the user's."""
import os

import engine  # noqa: F401 - importing sets the default
from engine.threads import SPIN_COUNT, limit_thread_spinning


def test_the_default_is_set_when_absent_and_the_users_value_kept():
    environ = {}
    limit_thread_spinning(environ)
    assert environ == {"GOMP_SPINCOUNT": SPIN_COUNT}
    environ = {"GOMP_SPINCOUNT": "300000"}
    limit_thread_spinning(environ)
    assert environ == {"GOMP_SPINCOUNT": "300000"}


def test_importing_the_engine_sets_it():
    assert os.environ.get("GOMP_SPINCOUNT")  # the default, or what the environment gave
