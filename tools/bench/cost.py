"""What streaming cost: rounds, round time split, real-time factor, CPU, memory, encoder GFLOPs, beam."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CostSummary:
    """Costs over a group of streams (None where the streams did not report the number).

    Round times are means per round; ``other_s`` is the rest of a round (mel, word alignment,
    LocalAgreement). RTF is time spent in rounds per second of audio; CPU is process CPU seconds
    per second of audio.
    """

    rounds: int | None
    mean_round_s: float | None
    encode_s: float | None
    decode_s: float | None
    other_s: float | None
    rtf: float | None
    cpu_per_audio_s: float | None
    peak_rss_mb: float | None
    gflops_per_round: float | None
    gflops_total: float | None
    avg_beam: float | None
    reduced_beam_fraction: float | None


def _total(records: list[dict], get) -> float | None:
    try:
        return float(sum(get(r) for r in records))
    except (KeyError, TypeError):
        return None


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def summarize_costs(records: list[dict]) -> CostSummary:
    """Costs of stream records (each with ``done``; bench runs also have ``round_s``, ``beam``, ``peak_rss_mb``)."""
    rounds = _total(records, lambda r: r["done"]["rounds"])
    audio = _total(records, lambda r: r["done"]["audio_s"])
    round_time = _total(records, lambda r: sum(r["round_s"]))
    encode = _total(records, lambda r: r["done"]["encode_s"])
    decode = _total(records, lambda r: r["done"]["decode_s"])
    gflops = _total(records, lambda r: r["done"]["encoder_gflops"])
    steps = _total(records, lambda r: r["beam"]["steps"])
    mean_round, enc, dec = _ratio(round_time, rounds), _ratio(encode, rounds), _ratio(decode, rounds)
    peaks = [r.get("peak_rss_mb") for r in records]
    return CostSummary(
        rounds=None if rounds is None else int(rounds),
        mean_round_s=mean_round,
        encode_s=enc,
        decode_s=dec,
        other_s=None if None in (mean_round, enc, dec) else mean_round - enc - dec,
        rtf=_ratio(round_time, audio),
        cpu_per_audio_s=_ratio(_total(records, lambda r: r["done"]["cpu_s"]), audio),
        peak_rss_mb=max(peaks) if peaks and None not in peaks else None,
        gflops_per_round=_ratio(gflops, rounds),
        gflops_total=gflops,
        avg_beam=_ratio(_total(records, lambda r: r["beam"]["sum"]), steps),
        reduced_beam_fraction=_ratio(_total(records, lambda r: r["beam"]["reduced"]), steps),
    )
