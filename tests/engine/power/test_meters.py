"""Power meters: each platform's format parsed from real-shaped fixtures, and the live meters this machine has."""

import shutil
import time
from pathlib import Path

import psutil
import pytest
from testdata import DATA

from engine.power import PowerUnavailable, default_meter, doctor_lines, survey_meters
from engine.power.estimated import CpuTimeEstimateMeter
from engine.power.linux_battery import open_battery
from engine.power.linux_rapl import open_rapl
from engine.power.macos_ioreg import IoregBatteryMeter, open_ioreg, parse_ioreg, system_watts
from engine.power.macos_powermetrics import open_powermetrics, package_watts, parse_powermetrics
from engine.power.nvml import open_nvml

DATA = DATA / "power"
RAPL_MAX = 262143328850


def fixture_copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def set_energy(root: Path, zone: str, microjoules: int) -> None:
    (root / zone / "energy_uj").write_text(f"{microjoules}\n")


# --- Linux RAPL -------------------------------------------------------------


def test_rapl_counts_only_package_zones_and_unwraps_the_counter(tmp_path):
    root = fixture_copy("powercap_laptop", tmp_path)
    meter = open_rapl(root)
    assert [z.name for z in meter.zones] == ["package-0"]  # not core/uncore, psys or the MMIO duplicate
    assert meter.covers == "package" and not meter.estimated
    first = meter.read()
    set_energy(root, "intel-rapl:0", 48123456789 + 2_500_000)
    set_energy(root, "intel-rapl-mmio:0", 99_999_999_999)  # a duplicate zone moving must not count
    second = meter.read()
    assert second.joules_total - first.joules_total == pytest.approx(2.5)
    assert second.watts > 0
    set_energy(root, "intel-rapl:0", RAPL_MAX - 1_000_000)
    before = meter.read().joules_total
    set_energy(root, "intel-rapl:0", 500_000)  # wrapped past max_energy_range_uj
    assert meter.read().joules_total - before == pytest.approx(1.5)


def test_rapl_sums_both_sockets_over_an_interval(tmp_path):
    root = fixture_copy("powercap_server", tmp_path)
    meter = open_rapl(root)
    assert meter.source == "Linux RAPL (package-0, package-1)"
    interval = meter.start(period_s=0.05)
    set_energy(root, "intel-rapl:0", 183204518827 + 1_000_000)
    set_energy(root, "intel-rapl:1", 176530049120 + 2_000_000)
    set_energy(root, "intel-rapl:0:0", 1)  # dram sub-zone: not counted
    time.sleep(0.15)
    use = interval.stop()
    assert use.joules == pytest.approx(3.0)
    assert use.readings >= 3 and use.mean_watts == pytest.approx(3.0 / use.seconds)


def test_rapl_absent_is_unavailable(tmp_path):
    with pytest.raises(PowerUnavailable, match="no package zones"):
        open_rapl(tmp_path)


# --- Linux battery ----------------------------------------------------------


def test_battery_power_now_ignores_a_mouse_battery():
    meter = open_battery(DATA / "power_supply_thinkpad")
    reading = meter.read()
    assert meter.source == "Linux battery (BAT0)"
    assert reading.watts == pytest.approx(7.854)
    assert (reading.covers, reading.estimated, reading.joules_total) == ("system", False, None)


def test_battery_voltage_times_current():
    assert open_battery(DATA / "power_supply_charge_based").read().watts == pytest.approx(15.921 * 0.612)


def test_battery_while_charging_is_unavailable():
    with pytest.raises(PowerUnavailable, match="not discharging.*BAT0 charging"):
        open_battery(DATA / "power_supply_charging")


# --- macOS ioreg ------------------------------------------------------------


def test_ioreg_values_are_typed():
    props = parse_ioreg((DATA / "ioreg_macbookpro_m1pro_on_adapter.txt").read_text())
    assert props["ExternalConnected"] is True and props["Voltage"] == 12879
    assert props["AdapterDetails"]["Name"] == "140W USB-C Power Adapter"
    assert props["BatteryData"]["CellVoltage"] == [4293, 4294, 4292]
    battery = parse_ioreg((DATA / "ioreg_macbookair_m2_on_battery.txt").read_text())
    assert battery["InstantAmperage"] == -903  # printed as unsigned 64-bit


@pytest.mark.parametrize(
    "capture, watts, how",
    [
        ("ioreg_macbookair_m2_on_battery.txt", 11.391, "SystemLoad"),
        ("ioreg_macbookpro_m1pro_on_adapter.txt", 13.984, "SystemLoad"),
        ("ioreg_macbookpro_intel_on_battery.txt", 11.441 * 1.582, "voltage × current"),
    ],
)
def test_ioreg_system_watts(capture, watts, how):
    assert system_watts(parse_ioreg((DATA / capture).read_text())) == (pytest.approx(watts), how)


def test_ioreg_on_adapter_without_telemetry_or_battery_is_unavailable():
    with pytest.raises(PowerUnavailable, match="power adapter"):
        system_watts(parse_ioreg((DATA / "ioreg_macbookpro_intel_on_adapter.txt").read_text()))
    with pytest.raises(PowerUnavailable, match="no AppleSmartBattery"):
        open_ioreg(lambda: "")


def test_ioreg_meter_integrates_energy():
    text = (DATA / "ioreg_macbookair_m2_on_battery.txt").read_text()
    meter = IoregBatteryMeter(lambda: text)
    assert meter.source == "macOS ioreg AppleSmartBattery (SystemLoad)" and meter.covers == "system"
    use = meter.start(period_s=0.05)
    time.sleep(0.2)
    result = use.stop()
    assert result.joules == pytest.approx(11.391 * result.seconds)


# --- macOS powermetrics -----------------------------------------------------


def test_powermetrics_apple_silicon():
    sample = parse_powermetrics((DATA / "powermetrics_m1pro.txt").read_text())
    assert (sample.cpu, sample.gpu, sample.ane) == (pytest.approx(7.426), pytest.approx(0.061), 0.0)
    assert package_watts(sample) == pytest.approx(7.487)


def test_powermetrics_intel_package():
    sample = parse_powermetrics((DATA / "powermetrics_intel_macbookpro.txt").read_text())
    assert sample.cpu is None and package_watts(sample) == pytest.approx(18.72)


def test_powermetrics_meter_reads_a_capture():
    text = (DATA / "powermetrics_m1pro.txt").read_text()
    reading = open_powermetrics(lambda: text).read()
    assert (reading.watts, reading.covers, reading.estimated) == (pytest.approx(7.487), "package", False)
    with pytest.raises(PowerUnavailable, match="no power lines"):
        open_powermetrics(lambda: "*** Sampled system activity (Tue Nov 21 15:42:07 2023 +0100) ***\n")


# --- live meters on this machine ----------------------------------------------


def test_nvml_opens_or_says_why_not():
    try:
        meter = open_nvml()
    except PowerUnavailable as exc:
        assert str(exc).startswith("NVML: ")
    else:  # a powered GPU has drawn energy since the driver loaded, and goes on drawing it
        first = meter.read()
        time.sleep(0.5)
        second = meter.read()
        assert meter.covers == "gpu" and 0 < first.joules_total < second.joules_total and second.watts > 0


def test_estimate_follows_process_cpu_time():
    meter = CpuTimeEstimateMeter(watts_per_core=10.0)
    cpu_before = sum(psutil.Process().cpu_times()[:2])
    interval = meter.start(period_s=0.05)
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:
        pass
    use = interval.stop()
    cpu_used = sum(psutil.Process().cpu_times()[:2]) - cpu_before
    assert use.estimated and use.covers == "cpu" and "estimated" in use.label()
    assert 3.0 * 0.9 <= use.joules <= cpu_used * 10.0 + 0.1


def test_default_meter_and_doctor_describe_the_same_choice():
    survey = survey_meters()
    lines = doctor_lines()
    assert lines[0] == f"power meter: {survey.active.describe()}"
    assert lines[1:] == [f"  not used: {reason}" for reason in survey.skipped]
    meter = default_meter()
    assert meter.source == survey.active.source
    meter.read()
    deadline = time.process_time() + 0.2
    while time.process_time() < deadline:  # busy: every meter (package, battery, GPU, CPU estimate) sees power
        pass
    assert meter.read().watts > 0


def test_mac_meters_fall_back_cleanly_where_their_tools_are_missing():
    if shutil.which("ioreg"):
        pytest.skip("this machine has ioreg")
    survey = survey_meters("darwin")
    assert isinstance(survey.active, CpuTimeEstimateMeter)
    assert [reason.split(":")[0] for reason in survey.skipped] == ["macOS powermetrics", "macOS ioreg"]
