"""The few word lists capture needs, in the languages developers write in.

Capture reads structure first (a failure, edits, the same command passing; an edit
reverted; an answer to a question). Words decide only what structure cannot: whether a
sentence a user typed states a lasting rule, whether the text before an edit gives a
reason, whether a wrap-up leaves something open. Each list covers English, Russian,
German, French, Spanish, Portuguese, Chinese and Japanese, and the commonest phrasings in
Italian, Polish, Korean, Turkish, Indonesian and Hinglish (and, for work left open, Dutch);
patterns are matched case-insensitively, with word boundaries only where the script has
spaces.

The lists are grouped by what they recognise: rules.py (lasting rules and what only looks
like one), reasons.py (the parts of a reason), problems.py (problems, diagnoses, mistakes
owned), attempts.py (tries, failures, pushback), open_work.py (work handed off or put
off), wrap_up.py (what a wrap-up leaves open), asks.py (what a prompt asks for), and
words.py (how a list is built, how text is cut into sentences).
"""

from __future__ import annotations

from .asks import (
    CHOICE_RE,
    CLARIFY_RE,
    DIRECTIVE_RE,
    EXPLAIN_RE,
    LEAN_RE,
    NO_CHANGES_RE,
    REHEARSAL_RE,
    REVIEW_RE,
    SUGGESTION_RE,
    WEIGHING_RE,
)
from .attempts import (
    ABANDON_RE,
    CORRECTION_RE,
    DEAD_END_HEADING_RE,
    DID_NOT_WORK_RE,
    DOUBT_RE,
    DROPPED_RE,
    NO_EFFECT_RE,
    NOT_YET_FAILED_RE,
    PROBE_UNDONE_RE,
    TRYING_RE,
)
from .open_work import (
    DEFER_RE,
    HANDOFF_RE,
    LATER_WORK_RE,
    TELL_SOMEONE_RE,
    UNDECIDED_RE,
    USER_NOT_YET_RE,
    WONDER_RE,
)
from .problems import (
    ACKNOWLEDGE_RE,
    BUG_FOUND_RE,
    CAUSE_LABEL_RE,
    DIAGNOSIS_RE,
    FIX_LABEL_RE,
    FOUND_IT_RE,
    HYPOTHESIS_RE,
    PROBLEM_RE,
    SELF_ERROR_RE,
)
from .reasons import (
    AGENCY_RE,
    ALREADY_RE,
    ALTERNATIVE_RE,
    AS_IT_IS_RE,
    BACK_REFERENCE_RE,
    CAUSE_RE,
    CONSEQUENCE_RE,
    EVALUATIVE_RE,
    GUARD_RE,
    LIMITATION_RE,
    MECHANICS_RE,
    NARRATION_RE,
    PURPOSE_RE,
    SETTLED_RE,
    STEP_RE,
)
from .rules import (
    BEHAVIOUR_RE,
    EMPHASIS_RE,
    EVERY_TIME_RE,
    EXPLAINED_RE,
    IMAGINED_RE,
    LASTING_RE,
    NEVER_HAPPENS_RE,
    NIGHT_WINDOW_RE,
    NOT_A_RULE_RE,
    OBLIGATION_RE,
    ONE_OFF_RE,
    PLACE_RE,
    PREFERENCE_RE,
    PROHIBITION_RE,
    RULE_SUBJECT_RE,
    RULES_WORD_RE,
    SCHEDULE_RE,
    SELF_REPORT_RE,
)
from .words import (
    SENTENCE_SPLIT_RE,
    sentences,
)
from .wrap_up import (
    CHOICE_ASK_RE,
    GENERIC_YOU_RE,
    NOTHING_OPEN_RE,
    OFFER_RE,
    OPEN_HEADING_RE,
    STILL_OPEN_RE,
    TO_USER_RE,
    UNCERTAIN_RE,
)

# The names capture, the service and the tests use as lexicon.NAME.
__all__ = [
    "ABANDON_RE",
    "DEAD_END_HEADING_RE",
    "DROPPED_RE",
    "NOT_YET_FAILED_RE",
    "PROBE_UNDONE_RE",
    "ACKNOWLEDGE_RE",
    "ALTERNATIVE_RE",
    "BUG_FOUND_RE",
    "CAUSE_LABEL_RE",
    "CAUSE_RE",
    "CHOICE_ASK_RE",
    "CHOICE_RE",
    "CLARIFY_RE",
    "AS_IT_IS_RE",
    "PLACE_RE",
    "EVERY_TIME_RE",
    "EXPLAINED_RE",
    "IMAGINED_RE",
    "AGENCY_RE",
    "ALREADY_RE",
    "GUARD_RE",
    "BACK_REFERENCE_RE",
    "SETTLED_RE",
    "STEP_RE",
    "CONSEQUENCE_RE",
    "CORRECTION_RE",
    "DEFER_RE",
    "DIAGNOSIS_RE",
    "DID_NOT_WORK_RE",
    "DIRECTIVE_RE",
    "DOUBT_RE",
    "EMPHASIS_RE",
    "EVALUATIVE_RE",
    "EXPLAIN_RE",
    "FIX_LABEL_RE",
    "FOUND_IT_RE",
    "GENERIC_YOU_RE",
    "HANDOFF_RE",
    "HYPOTHESIS_RE",
    "LASTING_RE",
    "LATER_WORK_RE",
    "LEAN_RE",
    "LIMITATION_RE",
    "MECHANICS_RE",
    "NARRATION_RE",
    "NEVER_HAPPENS_RE",
    "BEHAVIOUR_RE",
    "ONE_OFF_RE",
    "NOTHING_OPEN_RE",
    "NOT_A_RULE_RE",
    "NO_CHANGES_RE",
    "NO_EFFECT_RE",
    "NIGHT_WINDOW_RE",
    "OBLIGATION_RE",
    "OFFER_RE",
    "OPEN_HEADING_RE",
    "PREFERENCE_RE",
    "PROBLEM_RE",
    "PROHIBITION_RE",
    "PURPOSE_RE",
    "REHEARSAL_RE",
    "REVIEW_RE",
    "SUGGESTION_RE",
    "RULE_SUBJECT_RE",
    "RULES_WORD_RE",
    "SCHEDULE_RE",
    "SELF_ERROR_RE",
    "SELF_REPORT_RE",
    "SENTENCE_SPLIT_RE",
    "STILL_OPEN_RE",
    "TELL_SOMEONE_RE",
    "TO_USER_RE",
    "TRYING_RE",
    "UNCERTAIN_RE",
    "UNDECIDED_RE",
    "USER_NOT_YET_RE",
    "WEIGHING_RE",
    "WONDER_RE",
    "sentences",
]
