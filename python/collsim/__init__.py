"""collsim from Python: the collsim commands as functions over libcollsim (ctypes).

Each function is named as the command and takes the command's long options as keyword
arguments (``minbytes``, ``maxbytes``, ``stepfactor``, ``ngpus``, ``topo``, ``algo``,
``nodes``, ``tp``, ``pp``, ``dp``, ...; ``max_iter`` is ``--max-iter``). The result is the
dict (or list) the command prints with ``--format json``; an error raises
:class:`collsim.Error` with the command's message. Topologies and plans may be preset names,
paths or dicts. Calls are deterministic and may run in several threads at once (the
library releases the GIL while it simulates).

    >>> import collsim
    >>> r = collsim.run('allreduce', topo='dgx-h100', minbytes='1G', maxbytes='1G')
    >>> r['results'][0]['busbw_GBps']

The same code runs as ``collsim run allreduce --topo dgx-h100 -b 1G -e 1G --format json``.
"""

import ctypes
import hashlib
import json
import os
import tempfile

from . import _config

__all__ = ['Error', 'run', 'explain', 'validate', 'calibrate', 'plan', 'plan_search',
           'topologies', 'models', 'gpus', 'to_frame', 'version']


class Error(Exception):
    """A failed call: ``message`` and ``where`` as the collsim command prints them
    (``error: where: message``), ``code`` and ``name`` the library's error code (-7,
    'CS_EUSAGE'), ``exit_status`` the command's (1 error, 2 usage error)."""

    def __init__(self, err):
        self.message = err.get('message', '')
        self.where = err.get('where', '')
        self.code = err.get('code', 0)
        self.name = err.get('name', '')
        self.exit_status = err.get('exit_status', 1)
        super().__init__(f'{self.where}: {self.message}' if self.where else self.message)


def _candidates():
    """Where libcollsim may be, in order: $COLLSIM_LIB, the build tree's, the installed one
    beside this package (also under a DESTDIR), the system loader's."""
    env = os.environ.get('COLLSIM_LIB')
    if env:
        yield env
    if _config.BUILD_LIB:
        yield _config.BUILD_LIB
    if _config.PURELIB and _config.LIBDIR:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        rel = os.path.relpath(_config.LIBDIR, _config.PURELIB)
        yield os.path.normpath(os.path.join(here, rel, _config.SONAME))
    yield _config.SONAME


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f'{path} ({e})')
            continue
        lib.collsim_call.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.collsim_call.restype = ctypes.c_int
        lib.collsim_free.argtypes = [ctypes.c_void_p]
        lib.collsim_free.restype = None
        lib.collsim_version.argtypes = []
        lib.collsim_version.restype = ctypes.c_char_p
        return lib
    raise ImportError('collsim: libcollsim not found (tried ' + ', '.join(tried) +
                      '); set COLLSIM_LIB to its path')


_lib = _load()


def version():
    """The library's version (``collsim --version``)."""
    return _lib.collsim_version().decode()


def _file_of(value, kind):
    """A dict as a JSON file named by its content (the same dict, the same path: results
    that name the file stay deterministic); str and path-like values pass unchanged."""
    if not isinstance(value, dict):
        return os.fspath(value)
    text = json.dumps(value, indent=2) + '\n'
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = os.path.join(tempfile.gettempdir(), f'collsim-py-{os.getuid()}')
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, f'{kind}-{digest}.json')
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=folder, suffix='.tmp')
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        os.replace(tmp, path)
    return path


def _value(v):
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    raise TypeError(f'collsim: a flag value must be a string, number, bool or list, '
                    f'got {type(v).__name__}')


def _call(command, args=(), flags=None):
    flags = dict(flags or {})
    if isinstance(flags.get('topo'), dict):
        flags['topo'] = _file_of(flags['topo'], 'topology')
    request = {'command': command, 'args': [os.fspath(a) for a in args],
               'flags': {k: _value(v) for k, v in flags.items() if v is not None}}
    out = ctypes.c_void_p()
    rc = _lib.collsim_call(json.dumps(request).encode(), ctypes.byref(out))
    if not out.value:
        raise MemoryError('collsim: out of memory')
    try:
        result = json.loads(ctypes.string_at(out.value).decode())
    finally:
        _lib.collsim_free(out)
    if rc != 0:
        raise Error(result['error'])
    return result


def _list(paths):
    return [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)


def run(coll='allreduce', **flags):
    """``collsim run COLL``: a size sweep; the --format json dict (a list for several
    sweeps: rank counts -g 2:64 or algorithms algo='ring,tree')."""
    return _call('run', [coll], flags)


def explain(coll, **flags):
    """``collsim explain COLL``: {'text': the step-by-step explanation}."""
    return _call('explain', [coll], flags)


def validate(logs, **flags):
    """``collsim validate LOG... --topo T``: measured logs against the simulation."""
    return _call('validate', _list(logs), flags)


def calibrate(logs, **flags):
    """``collsim calibrate LOG... --topo T``: {'topology': the calibrated topology (a dict
    to pass as topo=), 'report': the fit report}."""
    return _call('calibrate', _list(logs), flags)


def plan(plan=None, **flags):
    """``collsim plan [PLAN.json]``: one training step; plan a dict, a path or None (a plan
    from the flags alone: model=, gpu=, topo=, tp=, ...). A dict is written to a file of
    its own, so files it names by a relative path are looked up beside that file: name
    them by absolute paths (or use presets)."""
    return _call('plan', [] if plan is None else [_file_of(plan, 'plan')], flags)


def plan_search(plan, **flags):
    """``collsim plan search PLAN.json``: every layout ranked ({'candidates': [...]})."""
    return _call('plan_search', [_file_of(plan, 'plan')], flags)


def topologies():
    """The topology presets and kinds (``collsim list topologies``)."""
    return _call('topologies')


def models():
    """The model presets of plans: [{'name', 'description', 'preset'}]."""
    return _call('models')


def gpus():
    """The GPU presets of plans: [{'name', 'description', 'preset'}]."""
    return _call('gpus')


_ROW_KEYS = ('results', 'rows', 'candidates', 'presets')


def _rows(result):
    """The table rows of a result: a sweep's results (with its ranks and collective),
    validate's rows, a search's candidates, the presets."""
    if isinstance(result, list):
        rows = []
        for r in result:
            rows.extend(_rows(r) if isinstance(r, dict) and any(k in r for k in _ROW_KEYS)
                        else [r])
        return rows
    for key in _ROW_KEYS:
        if isinstance(result.get(key), list):
            extra = {k: v for k, v in result.items()
                     if k in ('collective', 'ranks', 'topology') and key == 'results'}
            return [{**extra, **row} for row in result[key]]
    return [result]


def to_frame(result):
    """A pandas DataFrame of a result's rows; the columns are the JSON keys, units in their
    names (size_bytes, time_us, busbw_GBps). Needs pandas."""
    import pandas
    return pandas.DataFrame(_rows(result))
