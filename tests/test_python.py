"""test_python.py: issue 31, the collsim Python package (python/collsim) against the
collsim program: each function gives the command's --format json output on the same input,
errors raise collsim.Error with the program's message, two threads give one thread's
results, to_frame's columns are the JSON keys (when pandas is installed), and the package
works after `meson install --destdir` (run by tests/python.sh with PYTHONPATH=build/python,
COLLSIM, CS_TEST_DATA and MESON_BUILD_ROOT in the environment)."""

import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import collsim

COLLSIM = os.environ['COLLSIM']
DATA = os.environ['CS_TEST_DATA']
LOG = os.path.join(DATA, 'real', 'nccl-h100-1n8-allreduce-nvswitch-256M-2G.log')
PLAN = os.path.join(DATA, 'ok', 'plan-small.json')


def program(*args, check=True):
    """The program's stdout for args (its exit status checked)."""
    p = subprocess.run([COLLSIM, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f'collsim {" ".join(args)}: {p.returncode}: {p.stderr}')
    return p


def program_json(*args):
    return json.loads(program(*args, '--format', 'json').stdout)


class Commands(unittest.TestCase):
    """Each function = the command's JSON on the same input."""

    def test_run(self):
        got = collsim.run('allreduce', topo='dgx-h100', minbytes='1G', maxbytes='1G')
        want = program_json('run', 'allreduce', '--topo', 'dgx-h100', '-b', '1G', '-e', '1G')
        self.assertEqual(got, want)
        self.assertEqual(got['results'][0]['busbw_GBps'], want['results'][0]['busbw_GBps'])

    def test_run_sweeps(self):
        got = collsim.run('allgather', ngpus='2:8', algo=['ring', 'auto'], minbytes=1024,
                          maxbytes='1M', stepfactor=4, check=0)
        want = program_json('run', 'allgather', '-g', '2:8', '--algo', 'ring,auto', '-b', '1K',
                            '-e', '1M', '-f', '4', '-c', '0')
        self.assertIsInstance(got, list)
        self.assertEqual(got, want)

    def test_run_topology_dict(self):
        topo = {'kind': 'alpha_beta', 'ranks': 8,
                'link': {'bandwidth_GBps': 100, 'latency_us': 1.0}}
        got = collsim.run('allreduce', topo=topo, algo='ring', minbytes='1M', maxbytes='1M')
        with tempfile.NamedTemporaryFile('w', suffix='.json') as f:
            json.dump(topo, f)
            f.flush()
            want = program_json('run', 'allreduce', '--topo', f.name, '--algo', 'ring',
                                '-b', '1M', '-e', '1M')
        del got['topology'], want['topology']           # the file's name
        self.assertEqual(got, want)
        self.assertIn('closed_form_us', got['results'][0])

    def test_explain(self):
        got = collsim.explain('allreduce', algo='ring', ranks=4, minbytes='1M')
        want = program('explain', 'allreduce', '--algo', 'ring', '-g', '4', '-b', '1M').stdout
        self.assertEqual(got['text'], want)

    def test_validate(self):
        self.assertEqual(collsim.validate(LOG, topo='dgx-h100'),
                         program_json('validate', LOG, '--topo', 'dgx-h100'))
        self.assertEqual(collsim.validate([LOG], topo='dgx-h100'),
                         collsim.validate(LOG, topo='dgx-h100'))

    def test_calibrate(self):
        log = os.path.join(DATA, 'ok', 'log-nccl.json')
        start = os.path.join(DATA, 'ok', 'cal-start.json')
        got = collsim.calibrate(log, topo=start, max_iter=20)
        out = program('calibrate', log, '--topo', start, '--max-iter', '20', '--output', '-')
        topo, end = json.JSONDecoder().raw_decode(out.stdout)
        self.assertEqual(got['topology'], topo)
        self.assertEqual(got['report'], out.stdout[end:].lstrip('\n'))
        # the calibrated topology runs as it is
        r = collsim.run('allreduce', topo=got['topology'], minbytes='1M', maxbytes='1M')
        self.assertGreater(r['results'][0]['busbw_GBps'], 0)

    def test_plan(self):
        self.assertEqual(collsim.plan(PLAN), program_json('plan', PLAN))
        self.assertEqual(collsim.plan(PLAN, dp=2, pp=4),
                         program_json('plan', PLAN, '--dp', '2', '--pp', '4'))
        with open(PLAN) as f:
            as_dict = json.load(f)
        self.assertEqual(collsim.plan(as_dict), collsim.plan(PLAN))

    def test_plan_search(self):
        self.assertEqual(collsim.plan_search(PLAN, gpus=8),
                         program_json('plan', 'search', PLAN, '--gpus', '8'))

    def test_lists(self):
        names = [line.split()[0] for line in
                 program('list', 'topologies').stdout.split('\n\n')[0].splitlines()[2:]]
        self.assertEqual([p['name'] for p in collsim.topologies()['presets']], names)
        for fn, what in ((collsim.models, 'models'), (collsim.gpus, 'gpus')):
            names = [line.split()[0] for line in program('list', what).stdout.splitlines()[1:]]
            self.assertEqual([m['name'] for m in fn()], names)
            self.assertTrue(all(isinstance(m['preset'], dict) for m in fn()))

    def test_version(self):
        self.assertEqual('collsim ' + collsim.version(), program('--version').stdout.strip())


class Errors(unittest.TestCase):
    """Errors raise collsim.Error with the program's message."""

    def check(self, call, args, code, where):
        with self.assertRaises(collsim.Error) as cm:
            call()
        p = program(*args, check=False)
        e = cm.exception
        self.assertEqual(e.exit_status, p.returncode)
        self.assertEqual(e.code, code)
        self.assertEqual(e.where, where)
        self.assertEqual(f'error: {e}\n', p.stderr)

    def test_bad_topology(self):
        self.check(lambda: collsim.run('allreduce', topo='nope'),
                   ['run', 'allreduce', '--topo', 'nope'], -5, 'nope')

    def test_bad_size(self):
        self.check(lambda: collsim.run('allreduce', minbytes='x'),
                   ['run', 'allreduce', '--minbytes', 'x'], -7, '-b')

    def test_unknown_flag(self):
        self.check(lambda: collsim.run('allreduce', bogus=1),
                   ['run', 'allreduce', '--bogus', '1'], -7, '')

    def test_unknown_collective(self):
        self.check(lambda: collsim.run('allreduse'), ['run', 'allreduse'], -7, '')

    def test_files_refused(self):
        with self.assertRaises(collsim.Error) as cm:
            collsim.run('allreduce', output='x.json')
        self.assertEqual(cm.exception.where, '--output')
        self.assertEqual(cm.exception.exit_status, 2)

    def test_bad_value_type(self):
        with self.assertRaises(TypeError):
            collsim.run('allreduce', minbytes=object())


class Threads(unittest.TestCase):
    def test_two_threads(self):
        def work(out):
            out.append(collsim.run('allreduce', minbytes='1K', maxbytes='256M', stepfactor=4))
            out.append(collsim.plan(PLAN))
            try:
                collsim.run('allreduce', topo='nope')
            except collsim.Error as e:
                out.append(str(e))
        one, a, b = [], [], []
        work(one)
        ts = [threading.Thread(target=work, args=(x,)) for x in (a, b)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(a, one)
        self.assertEqual(b, one)


class Frames(unittest.TestCase):
    def setUp(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest('pandas is not installed (apt-get install python3-pandas)')

    def test_columns(self):
        r = collsim.run('allreduce', minbytes='1K', maxbytes='1M')
        df = collsim.to_frame(r)
        self.assertEqual(len(df), len(r['results']))
        self.assertEqual(list(df.columns),
                         ['collective', 'ranks', 'topology'] + list(r['results'][0]))
        self.assertEqual(list(df['busbw_GBps']), [x['busbw_GBps'] for x in r['results']])
        s = collsim.plan_search(PLAN, gpus=8)
        keys = list(dict.fromkeys(k for c in s['candidates'] for k in c))  # 'why': unfit ones
        self.assertEqual(list(collsim.to_frame(s).columns), keys)


class Installed(unittest.TestCase):
    """`meson install --destdir`: the installed package finds the installed library."""

    def test_destdir(self):
        build = os.environ.get('MESON_BUILD_ROOT')
        if not build:
            self.skipTest('MESON_BUILD_ROOT not set')
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run(['meson', 'install', '-C', build, '--destdir', d, '--no-rebuild',
                                '--quiet'], capture_output=True, text=True)
            if p.returncode != 0 and 'meson' in p.stderr and 'not found' in p.stderr:
                self.skipTest('meson not found')
            self.assertEqual(p.returncode, 0, p.stderr)
            pkgs = [root for root, dirs, files in os.walk(d) if '__init__.py' in files and
                    os.path.basename(root) == 'collsim']
            self.assertEqual(len(pkgs), 1, pkgs)
            env = dict(os.environ, PYTHONPATH=os.path.dirname(pkgs[0]))
            env.pop('COLLSIM_LIB', None)
            code = ("import collsim; print(collsim.__file__); print(collsim._lib._name); "
                    "print(collsim.run('allreduce', topo='dgx-h100', minbytes='1G', "
                    "maxbytes='1G')['results'][0]['busbw_GBps'])")
            p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                               env=env, cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            path, lib, busbw = p.stdout.split()
            self.assertTrue(path.startswith(d), path)
            self.assertTrue(lib.startswith(d), lib)
            want = program_json('run', 'allreduce', '--topo', 'dgx-h100', '-b', '1G', '-e', '1G')
            self.assertEqual(float(busbw), want['results'][0]['busbw_GBps'])


if __name__ == '__main__':
    unittest.main(verbosity=2)
