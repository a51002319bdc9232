"""An actor whose last handle is gone is ended, as Ray ends it: its GPU is free for the next
actor; a handle passed to another actor keeps it alive until that one drops it; named and
detached actors are not counted; ``__ray_shutdown__`` runs on that graceful end, not on
``ray.kill``. Real daemons, drivers as subprocesses."""

import pytest

from conftest import Clusters, run_driver


def _run(base, code):
    done = run_driver(base, code, timeout=120)
    assert done.returncode == 0, f"driver failed: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def one_gpu(tmp_path_factory):
    c = Clusters(tmp_path_factory)
    yield c.start("--num-gpus", "1", "--num-cpus", "4")
    c.stop_all()


def test_a_dropped_gpu_actor_frees_its_gpu_for_the_next(one_gpu):
    out = _run(one_gpu, """
        import gc, time, ray
        ray.init()
        @ray.remote(num_gpus=1)
        class G:
            def ids(self):
                return ray.get_gpu_ids()
        for i in range(3):  # each one waits for the one before to be gone
            g = G.remote()
            print("GPU", i, ray.get(g.ids.remote(), timeout=30), flush=True)
            del g
        """)
    assert [line.split()[1] for line in out.splitlines() if line.startswith("GPU")] == ["0", "1", "2"], out


def test_a_handle_held_by_another_actor_keeps_the_actor(one_gpu):
    out = _run(one_gpu, """
        import time, ray
        ray.init()
        @ray.remote(num_gpus=1)
        class G:
            def ping(self):
                return "pong"
        @ray.remote(num_cpus=0)
        class Keeper:
            def keep(self, handles):
                self.g = handles[0]
                return ray.get(self.g.ping.remote())
            def use(self):
                return ray.get(self.g.ping.remote())
            def drop(self):
                self.g = None
                return True
        k = Keeper.remote()
        g = G.remote()
        print("KEEP", ray.get(k.keep.remote([g]), timeout=30), flush=True)
        del g
        time.sleep(1.0)
        print("USE", ray.get(k.use.remote(), timeout=30), flush=True)
        ray.get(k.drop.remote())
        g2 = G.remote()  # the GPU returns once the keeper's handle is gone
        print("NEXT", ray.get(g2.ping.remote(), timeout=30), flush=True)
        """)
    assert "KEEP pong" in out and "USE pong" in out and "NEXT pong" in out, out


def test_named_and_detached_actors_are_not_ended_by_a_dropped_handle(one_gpu):
    out = _run(one_gpu, """
        import os, time, ray
        ray.init(namespace="keep")
        @ray.remote(num_cpus=0)
        class A:
            def pid(self):
                return os.getpid()
        named = A.options(name="named").remote()
        detached = A.options(lifetime="detached").remote()
        plain = A.remote()
        pids = {k: ray.get(h.pid.remote(), timeout=30)
                for k, h in (("named", named), ("detached", detached), ("plain", plain))}
        del named, detached, plain
        def alive(pid):
            try:
                os.kill(pid, 0)
                return True
            except ProcessLookupError:
                return False
        deadline = time.monotonic() + 60  # the plain one ends (however loaded the machine)...
        while alive(pids["plain"]) and time.monotonic() < deadline:
            time.sleep(0.05)
        for k, pid in pids.items():  # ...and by then the others would have too
            print(k, "alive" if alive(pid) else "gone", flush=True)
        os.kill(pids["detached"], 9)  # a detached actor outlives this driver: not left behind
        """)
    assert "named alive" in out and "detached alive" in out and "plain gone" in out, out


def test_ray_shutdown_hook_runs_on_drop_and_not_on_kill(one_gpu, tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    _run(one_gpu, f"""
        import os, time, ray
        ray.init()
        @ray.remote(num_cpus=0)
        class A:
            def __init__(self, tag):
                self.tag = tag
            def ping(self):
                return "pong"
            def __ray_shutdown__(self):
                open(os.path.join({str(marks)!r}, self.tag), "w").close()
                if self.tag == "raises":
                    raise RuntimeError("hook failed")
        dropped, killed, raises = A.remote("dropped"), A.remote("killed"), A.remote("raises")
        ray.get([dropped.ping.remote(), killed.ping.remote(), raises.ping.remote()])
        ray.kill(killed)
        del dropped, raises
        deadline = time.time() + 60
        while len(os.listdir({str(marks)!r})) < 2 and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        """)
    assert sorted(p.name for p in marks.iterdir()) == ["dropped", "raises"]



def test_a_call_sent_before_the_handle_went_runs_even_while_the_actor_waits(one_gpu):
    out = _run(one_gpu, """
        import ray
        ray.init()
        @ray.remote(num_gpus=1)
        class G:
            def ids(self):
                return ray.get_gpu_ids()
        first = G.remote()
        ray.get(first.ids.remote(), timeout=30)
        ref = G.remote().ids.remote()  # that handle is gone at once; its actor waits for the GPU
        del first                      # the GPU frees, the waiting actor starts and answers
        print("GOT", ray.get(ref, timeout=30), flush=True)
        """)
    assert "GOT [0]" in out, out
