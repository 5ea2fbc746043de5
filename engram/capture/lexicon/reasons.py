"""The parts of a reason given before an edit, and talk that explains nothing lasting.

A reason names an alternative, a purpose, a cause, a consequence, a limit of a tool or a
judgement; how many of these a sentence holds is how much of a decision it records. Talk
about the code's momentary state and narration of an investigation weigh against it.
"""

from __future__ import annotations

import re

from .words import _words

# The three parts of a reason: an alternative named, a purpose, a cause.
ALTERNATIVE_RE = re.compile(_words(
    r"\binstead( of)?\b", r"\(not (a |an |the )?[^)]{3,60}\)", r"\brather than\b",
    r"\bin favou?r of\b", r"\bover (the|a|an)\b", r"\bvs\.?(?=\s)", r"\bversus\b",
    r"\bnot (the|a|an)? ?\S+,? (but|since|because)\b", r"\bswitch(ed|ing)? (to|from)\b",
    r"\bswap(ped|ping)? (to|for|in|out)\b",
    r"\bgo(ing)? with\b", r"\bwent with\b", r"\bopt(ed)? for\b", r"\bchose\b", r"\bpicked\b",
    r"\bbetter (than|fit|choice)\b", r"\bprefer\b",
    # "(kein merge, weil …)": the road not taken, in parentheses
    r"\((kein|keine|pas de|pas|sin|sem|не|没有|非)\s?[^)]{2,60}\)",
    r"вместо", r"а не\b", r"\bstatt\b", r"anstatt", r"\bnicht \S+, sondern\b",
    r"\bund nicht\b", r"\bet non\b",
    r"au lieu de", r"plutôt que", r"en lugar de", r"en vez de", r"em vez de", r"ao invés de",
    r", not (a |an |the )?[\w-]+", r"\bstattdessen\b", r"\bwill ich nicht\b", r"\bne suffi",
    r"\bn'est pas la bonne\b", r"\bno alcanza\b", r"\bnão basta\b", r"\bнедостаточно\b",
    r"不够", r"足りない",
    r"而不是", r"而非", r"改用", r"不采用", r"没有采用", r"採用せず", r"採用しない", r"見送",
    r"ではなく", r"代わりに", r"より", r"지 않고", r"대신",
    # a choice announced as one: "One choice to make: what to do with an unknown escape"
    r"\b(one|a|the|design|another) choice\b", r"\bchoice to make\b", r"\btrade-?off\b",
    r"\bentscheidung\b", r"\babwägung\b", r"\bun choix\b", r"\buna elección\b",
    r"\buma escolha\b", r"\bодин выбор\b", r"需要(做个)?选择", r"選択肢",
    # "why not X": the alternative named and turned down
    r"\bwhy not\b", r"почему не\b", r"warum (nicht|kein)", r"pourquoi (pas|ne)\b",
    r"por qu[ée] no\b", r"por que não\b", r"为什么不", r"なぜ\S{0,12}(ない|ず)",
), re.IGNORECASE)
PURPOSE_RE = re.compile(_words(
    r"\bso that\b", r"\bso (it|we|the|this|they|callers|clients|users)\b",
    r"\bto (avoid|keep|prevent|make sure|ensure|stop|reduce|allow|guarantee)\b",
    r"\botherwise\b", r"\bwhich (avoids|keeps|prevents|means)\b",
    r"чтобы", r"иначе", r"\bdamit\b", r"\bum \S+ zu\b", r"\bsonst\b", r"afin de",
    r"\bpour (éviter|que|garder|ne pas)\b", r"\bsinon\b", r"\bpara (evitar|que|mantener|manter|"
    r"não|no)\b", r"\bsenão\b", r"\bde lo contrario\b", r"为了", r"以免", r"否则", r"以便",
    r"ように", r"ないよう",
    # the harm a choice guards against: "if the dump leaks, nobody can confirm with it"
    r"\b(even )?if\b[^.;]{3,80}\b(can't|cannot|won't|nobody|no one)\b",
    r"если[^.;]{3,80}(нельзя|не смож|никто)", r"\bwenn\b[^.;]{3,80}\b(kann (man )?(nicht|kein)|"
    r"niemand)\b", r"\bsi\b[^.;]{3,80}(ne peut|\bpersonne\b|no (se )?pued|\bnadie\b)",
    r"\bse\b[^.;]{3,80}(não (dá|pode)|ninguém)", r"(如果|万一|即使)[^。；]{2,40}(无法|不能|没法)",
), re.IGNORECASE)
# What breaking a rule would cost: "wiping the db means people lose everything".
CONSEQUENCE_RE = re.compile(_words(
    r"\bmeans?\b", r"\bwould (mean|break|lose|cost)\b", r"\blose (everything|data|all)\b",
    r"\bleads? to\b", r"\bbedeutet\b", r"\bführt zu\b", r"\bsignifie\b", r"\bentraîne\b",
    r"\bsignifica\b", r"\bprovoca\b", r"означает", r"привед[её]т", r"意味", r"会导致", r"就会",
), re.IGNORECASE)
CAUSE_RE = re.compile(_words(
    r"\bbecause\b", r", so\b", r"^so\b", r"\bhence\b", r"\btherefore\b", r"\bwhich is why\b",
    r"так что", r"поэтому", r"\balso\b,", r"\bdaher\b", r"\bdeswegen\b", r"\bdonc\b",
    r"\bc'est pourquoi\b", r"\bpor eso\b", r"\bpor lo que\b", r"\bpor isso\b", r"\bentão\b",
    r"所以", r"因此", r"なので", r"だから", r"así que", r"\bentonces\b", r"de modo que",
    r"\bassim\b", r"\bportanto\b", r"\balors\b", r"du coup", r"\bsomit\b", r"значит",
    r"\bsince\b", r"\bas (it|the|we|this|they)\b.+\b(is|are|was|does|doesn't"
    r"|can't|won't|needs?)\b", r"\bthat's why\b", r"\bthe (problem|issue|cause|root cause|reason) "
    r"(is|was)\b", r"\bdue to\b", r"\bgiven that\b",
    r"потому что", r"так как", r"поскольку", r"из-за", r"\bweil\b", r"\bda (die|der|das|es|wir)\b",
    r"parce que", r"\bcar\b", r"puisque", r"\bporque\b", r"\bya que\b", r"\bpuesto que\b",
    r"\bpois\b", r"já que", r"因为", r"由于", r"ので", r"から、", r"ため、", r"ためです",
    r"原因", r"理由", r"\bperché\b", r"\bpoiché\b", r"\bquindi\b", r"\bponieważ\b",
    r"\bbo\b", r"\bdlatego\b", r"때문에", r"그래서", r"이라서",
    r"\balso (passt|ist|bleibt|nehmen|machen|lassen|geht)\b",
), re.IGNORECASE)
# A limit of a tool or of the code: the other half of many reasons ("SQLite doesn't
# support …", "the sandbox can't …").
LIMITATION_RE = re.compile(_words(
    r"\b(doesn't|does not|don't|do not|can't|cannot|won't|isn't|aren't|never) (support|allow|work|"
    r"handle|accept|guarantee|know|tell|distinguish|scale|fit|block|lock|need|exist|see|reach|"
    r"run)\w*\b", r"\bnot supported\b",
    r"\bunsupported\b", r"\bwould (break|fail|starve|leak|block|race|hide|lose)\b",
    r"\bbreaks?\b", r"\btoo (slow|expensive|big|large|many|noisy)\b", r"\bonly works\b",
    r"\brequires?\b", r"\brelies on\b", r"\bdepends on\b", r"\bunlike\b", r"\bsafe\b",
    r"\bidempotent\b", r"\bstarve", r"\brace\b",
    r"не поддерживает", r"не умеет", r"не может", r"не работает", r"требует", r"зависит от",
    r"nicht unterstützt", r"unterstützt kein", r"kann (kein|nicht)", r"verlassen sich",
    r"ne supporte pas", r"ne peut pas", r"ne sait pas", r"dépend de", r"no soporta", r"no puede",
    r"depende de", r"não suporta", r"não pode", r"不支持", r"无法", r"不能", r"依赖",
    r"サポートしていない", r"できない", r"依存",
    # a tool that offers one way only: "die v1 api kann nur offset"
    r"\b(can|could) only\b", r"\b(kann|können) nur\b", r"\bne (peut|sait) que\b",
    r"\bsolo (puede|acepta|soporta)\b", r"\bsó (pode|aceita|suporta)\b", r"(умеет|может) только",
    r"只(能|支持)", r"しか(でき|対応)",
), re.IGNORECASE)

# Judgement words: a comparison or a verdict is half a reason ("an error is kinder").
EVALUATIVE_RE = re.compile(_words(
    r"\b(better|simpler|safer|cleaner|cheaper|easier|kinder|clearer|faster|slower|worse|"
    r"riskier|more robust|less error-prone|overkill|fragile|brittle|risky|wasteful)\b",
    r"\bwould (mean|make|cause|let|give|hide|turn)\b", r"\b(choice|trade-?off|option) to make\b",
    r"лучше", r"проще", r"безопаснее", r"надёжнее", r"\bbesser\b", r"einfacher", r"sicherer",
    r"\bmieux\b", r"plus simple", r"plus sûr", r"\bmejor\b", r"más simple", r"más seguro",
    r"\bmelhor\b", r"mais simples", r"mais seguro", r"更好", r"更简单", r"更安全", r"より良い",
    r"シンプル", r"安全", r"\bschöner\b", r"\bsauberer\b", r"\beleganter\b", r"plus propre",
    r"más limpio", r"mais limpo", r"\bnicer\b", r"красивее", r"\bчище\b", r"更优雅", r"更干净",
    # "the right way is": the choice made among ways
    r"\bthe (right|correct|proper) (way|fix|approach|thing)\b", r"правильн\w* (решение|способ|"
    r"путь|вариант)", r"\b(der|die) richtige (weg|lösung|ansatz)\b", r"la bonne (façon|solution|"
    r"approche)", r"la (forma|solución) correcta", r"o (jeito|caminho) certo", r"a solução certa",
    r"正确(的)?做法", r"正しい(やり方|方法|対応)",
), re.IGNORECASE)

# Talk about the code's momentary state: what an edit is doing, not why the design is so.
MECHANICS_RE = re.compile(
    r"\b(unused|not used|isn't used|is not used|still uses|haven't|not yet|typo|imports?|"
    r"alias(es)?|indentation|whitespace|syntax error|compile error|missing (comma|bracket|paren)"
    r"|now (that|the)|the test (file|expects)|placeholder)\b|^(now|good|great|perfect|ok|okay|"
    r"first|next|then|also|finally)\b",
    re.IGNORECASE,
)

# Investigation and narration: text before a tool that explains nothing lasting.
NARRATION_RE = re.compile(
    r"^\s*(let me|let's|now (let me|i'll|i will)|i'll (now )?(check|look|read|run|start|search|"
    r"open|examine|verify|see|view|explore|update|fix|add|create|write|make|also)|first,? "
    r"(let me|i'll)|next,? (let me|i'll)|okay|ok|great|perfect|good|now|alright|sure|done|"
    r"i need to (check|look|read|see|find)|looking at|checking|reading|running)\b",
    re.IGNORECASE,
)
