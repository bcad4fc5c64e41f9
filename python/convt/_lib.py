"""ctypes bindings of libconvt (include/convt/convt.h). No compiler is needed:
the shared library is found, in order, at $CONVT_LIBRARY, by the system's
loader (an installed libconvt.so), or in the build directory of a source
checkout (build/libconvt.so beside this package's folder)."""
import ctypes
import ctypes.util
import os

MAX_DIMS = 3
TIERS = {"fp32": 0, "tf32": 1}


class Err(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 1024), ("skip", ctypes.c_int)]


class Problem(ctypes.Structure):
    """convt_problem (include/convt/problem.h), field for field."""
    _fields_ = [
        ("name", ctypes.c_char * 64),
        ("dims", ctypes.c_int),
        ("n", ctypes.c_int64), ("cin", ctypes.c_int64), ("cout", ctypes.c_int64),
        ("groups", ctypes.c_int64),
        ("bias", ctypes.c_bool),
        ("in_", ctypes.c_int64 * MAX_DIMS),
        ("k", ctypes.c_int64 * MAX_DIMS),
        ("stride", ctypes.c_int64 * MAX_DIMS),
        ("pad", ctypes.c_int64 * MAX_DIMS),
        ("out_pad", ctypes.c_int64 * MAX_DIMS),
        ("dil", ctypes.c_int64 * MAX_DIMS),
    ]


class ConvtError(RuntimeError):
    """libconvt said no; the message says why."""


def _candidates():
    env = os.environ.get("CONVT_LIBRARY")
    if env:
        yield env
    found = ctypes.util.find_library("convt")
    if found:
        yield found
    here = os.path.dirname(os.path.abspath(__file__))
    for build in ("build", "build-nocuda", "build-gpu"):
        yield os.path.join(here, "..", "..", build, "libconvt.so")


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError("libconvt not found; set CONVT_LIBRARY to libconvt.so (tried: "
                      + "; ".join(tried) + ")")


lib = _load()

_P = ctypes.c_void_p
_E = ctypes.POINTER(Err)
for name, args, res in [
    ("convt_ctx_create", [ctypes.c_int, ctypes.POINTER(_P), _E], ctypes.c_int),
    ("convt_ctx_destroy", [_P], None),
    ("convt_ctx_device_name", [_P], ctypes.c_char_p),
    ("convt_ctx_set_workspace_limit", [_P, ctypes.c_size_t], None),
    ("convt_ctx_load_plugin", [_P, ctypes.c_char_p, _E], ctypes.c_int),
    ("convt_table_load", [_P, ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(_P), _E], ctypes.c_int),
    ("convt_table_empty", [_P, ctypes.POINTER(_P), _E], ctypes.c_int),
    ("convt_table_describe", [_P, ctypes.c_char_p, ctypes.c_size_t], None),
    ("convt_table_enable_tuning", [_P, ctypes.c_char_p, _E], ctypes.c_int),
    ("convt_table_destroy", [_P], None),
    ("convt_plan_create", [_P, _P, ctypes.POINTER(Problem), ctypes.c_int, ctypes.POINTER(_P), _E],
     ctypes.c_int),
    ("convt_plan_describe", [_P, ctypes.c_char_p, ctypes.c_size_t], None),
    ("convt_plan_variant", [_P], ctypes.c_char_p),
    ("convt_plan_rule", [_P], ctypes.c_char_p),
    ("convt_plan_workspace_size", [_P], ctypes.c_size_t),
    ("convt_execute", [_P, _P, _P, _P, _P, _P, _P, _E], ctypes.c_int),
    ("convt_plan_destroy", [_P], None),
    ("convt_out_size", [ctypes.POINTER(Problem), ctypes.c_int], ctypes.c_int64),
    ("convt_problem_key", [ctypes.POINTER(Problem), ctypes.c_char_p, ctypes.c_size_t], None),
]:
    f = getattr(lib, name)
    f.argtypes = args
    f.restype = res


def check(rc, err):
    if rc != 0:
        raise ConvtError(err.msg.decode(errors="replace"))
