"""ray/_beam/launch/tempdirs.py's checks before the Python launcher starts a daemon (the path that
runs when the `ray` script's launch file is stale): each bad temp dir is refused with the
path, what is wrong and the fix, before anything is made in it; a missing one is made 0700."""

import os
import stat
import tempfile

import pytest

from ray._beam.launch import launcher, tempdirs


def test_a_missing_temp_dir_is_made_owner_only(tmp_path):
    temp = tmp_path / "a" / "b"
    tempdirs.prepare_for_start(str(temp))
    assert stat.S_IMODE(os.stat(temp).st_mode) == 0o700


@pytest.mark.parametrize("make, said", [
    (lambda p: p.write_text(""), "is a file, not a folder"),
    (lambda p: p.mkdir(mode=0o777) or os.chmod(p, 0o777), "lets other users write it"),
])
def test_a_bad_temp_dir_is_refused(tmp_path, make, said):
    temp = tmp_path / "t"
    make(temp)
    with pytest.raises(ValueError, match=said) as e:
        tempdirs.prepare_for_start(str(temp))
    assert str(temp) in str(e.value)


def test_a_temp_dir_under_a_file_is_refused_naming_the_file(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match=f"cannot be made: {tmp_path / 'f'} is a file"):
        tempdirs.prepare_for_start(str(tmp_path / "f" / "sub"))


def test_the_launcher_refuses_before_the_daemon_and_its_log(capsys):
    # short: a temp dir too long for the socket would be handed to the Java CLI (an exec)
    fd, temp = tempfile.mkstemp(prefix="btd-", dir="/tmp")
    os.close(fd)
    try:
        assert tempdirs.fits_socket(temp)
        with pytest.raises(SystemExit) as e:
            launcher.main(["start", "--head", "--temp-dir", temp])
    finally:
        os.unlink(temp)
    assert e.value.code == 2
    assert f"beam: the temp dir {temp} is a file" in capsys.readouterr().err


def test_a_long_temp_dir_is_left_to_the_daemon_to_explain():
    assert tempdirs.fits_socket("/tmp/ray")
    assert not tempdirs.fits_socket("/" + "x" * 44)
