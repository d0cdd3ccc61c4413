"""The period study counts each period by what the captions show and what the reference has there."""

from tools.period_study import count


def test_periods_are_counted_by_what_is_shown_and_what_the_reference_has():
    reference = "represented in the Exhibition, in being comparatively modern. For although".split()
    said = "represented in the exhibition. in being comparatively modern. For although".split()
    assert count(said, reference) == {("comma", "comma, semicolon or colon"): 1, ("period", "sentence end"): 1}
    run_on = "represented in the exhibition in being. Comparatively modern. for although".split()
    assert count(run_on, reference) == {("period", "nothing"): 1, ("comma", "sentence end"): 1}
