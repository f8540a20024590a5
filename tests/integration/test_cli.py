"""The verbsgate CLI against the module, and without it."""
import json


def test_cli_reports_missing_module(guest):
    for args in ["status", "dev show", "-j dev show"]:
        res = guest.cli(args)
        assert res.rc == 2, res.out
        assert "module is not loaded" in res.out
        assert "modprobe verbsgate" in res.out


def test_cli_text_output(guest):
    assert guest.load_verbsgate().ok
    res = guest.cli("status")
    assert res.ok and "loaded, 1 device" in res.out, res.out
    res = guest.cli("dev show")
    assert res.ok and f": {guest.rxe_dev}: driver rdma_rxe ports 1" in res.out


def test_cli_pretty_json_parses(guest):
    assert guest.load_verbsgate().ok
    res = guest.cli("dev show -j -p")
    assert res.ok, res.out
    assert "\n  " in res.out
    assert json.loads(res.out)[0]["name"] == guest.rxe_dev


def test_cli_unknown_device(guest):
    assert guest.load_verbsgate().ok
    res = guest.cli("dev show nosuchdev")
    assert res.rc == 1
    assert "no such device attached to verbsgate" in res.out


def test_cli_usage_errors(guest):
    for args, msg in [("bogus", 'unknown object "bogus"'),
                      ("--frobnicate", 'unknown option "--frobnicate"'),
                      ("status extra", 'unexpected argument "extra"')]:
        res = guest.cli(args)
        assert res.rc == 1 and msg in res.out, res.out
