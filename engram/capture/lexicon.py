"""The few word lists capture needs, in the languages developers write in.

Capture reads structure first (a failure, edits, the same command passing; an edit
reverted; an answer to a question). Words decide only what structure cannot: whether a
sentence a user typed states a lasting rule, whether the text before an edit gives a
reason, whether a wrap-up leaves something open. Each list covers English, Russian,
German, French, Spanish, Portuguese, Chinese and Japanese, and the commonest phrasings in
Italian, Polish and Korean (and, for work left open, Dutch and Turkish); patterns are matched
case-insensitively, with word boundaries only where the script has spaces.
"""

from __future__ import annotations

import re


def _words(*alternatives: str) -> str:
    return "|".join(alternatives)


# A rule for all future work: the strongest sign that a sentence is a rule, not a request.
_LASTING = _words(
    r"\balways\b", r"\bnever\b(?! ?mind)", r"\bfrom now on\b", r"\bgoing forward\b",
    r"\bin (the )?future\b",
    r"\bevery time (you|we|someone|anyone|anybody|somebody|a |an )", r"\bwhenever (you|we)\b",
    r"\bza każdym razem,? (jak|gdy) (ktoś|ktos|dodajemy)",
    r"\bin this (repo|repository|project|codebase|team)\b",
    r"\bin our (repo|codebase|project|team)\b", r"\bby default\b", r"\bas a rule\b",
    r"\bat all times\b", r"\bno matter what\b", r"\bon purpose\b", r"\bdeliberately\b",
    r"\bby design\b", r"\bintentionally\b",
    # everything of a kind, for good: "everything in prod gets protect: true"
    r"\beverything (in|on|under|touching|that touches|talking to) \S+( \S+){0,3} (gets|has|is|"
    r"stays|goes|must)\b",
    r"\balles (in|auf) \S+ (bekommt|hat|ist|muss)\b", r"\btout (en|sur|dans) \S+ (a|doit|est)\b",
    r"\btodo (en|lo de) \S+ (lleva|tiene|debe|va)\b", r"\btudo (em|no|na) \S+ (leva|tem|deve)\b",
    # a state to keep: "and it stays that way", "パーサは今のままで"
    r"\b(it|that|this) (stays|remains) (that way|so|as it is|as is)\b", r"\bkeep it that way\b",
    r"\b(und )?(das|es) bleibt (so|dabei)\b", r"\b(soll|muss) (auch )?so bleiben\b",
    r"\bshould (stay|remain) (that way|as it is|as is)\b", r"\breste(ra)? comme (ça|ca)\b",
    r"\bse (queda|mantiene) así\b", r"\b(fica|continua) assim\b", r"так и остав",
    r"\bresta così\b", r"保持(不变|现状|原样)", r"今の.{0,20}のまま(で|に)", r"のままにして",
    # ru
    r"всегда", r"никогда", r"с этого момента", r"отныне", r"впредь", r"в дальнейшем",
    r"каждый раз", r"(в )?(этом|этого|нашем|нашего) (репо|репозитори|проект)",
    r"у нас (принято|так)",
    # de
    r"\bimmer\b(?! noch)", r"\bniemals\b",
    # German "nie" (never), not the Polish "nie" (not): no Polish letters in the sentence
    r"\bnie\b(?![^.!?\n]*[ąęłńśźżć])", r"\bab (jetzt|sofort)\b", r"\bvon nun an\b",
    r"\bkünftig\b", r"\bin zukunft\b", r"\bgrundsätzlich\b", r"\bjedes mal\b",
    # "here we use Flyway": how this project does things
    r"\bhere we (use|don't|do not|never|always)\b", r"\bqui (usiamo|si usa|non usiamo)\b",
    r"\bici on (utilise|n'utilise)\b", r"\bhier (nutzen|verwenden) wir\b",
    r"\baquí (usamos|no usamos)\b", r"\baqui (usamos|a gente usa|não usamos)\b",
    r"\b(in )?(diesem|dieses|unserem) (repo|projekt)", r"\bbei uns\b",
    # "aquí/acá" alone is "here" ("incluye aquí el código"); a verb after it makes it ours
    r"\b(aquí|aqui|acá|aca),? (no )?(se )?(usa|usamos|trabajamos|hacemos|va|van|corre|"
    r"corren|todo|nada|nunca|siempre|solo|sólo)\b",
    # fr
    # "toujours" is "always" before an infinitive or after an imperative, else "still"
    r"\btoujours (\w+er|\w+ir|\w+re)\b", r"\b\w+(e|ez) toujours\b", r"\bjamais\b",
    r"\bdésormais\b", r"\bdorénavant\b",
    r"\bà partir de maintenant\b", r"\bà l'avenir\b", r"\bchaque fois\b",
    r"\b(dans ce|de ce|du) (dépôt|projet|repo)\b", r"\bchez nous\b", r"\bici,? tout\b",
    # es / pt
    r"\bsiempre\b", r"\bnunca\b", r"\ba partir de ahora\b", r"\bde ahora en adelante\b",
    r"\ben adelante\b", r"\bcada vez\b", r"\ben este (repo|proyecto)\b",
    r"\bsempre\b", r"\ba partir de agora\b", r"\bdaqui (pra|para) frente\b",
    r"\bneste (repo|projeto)\b", r"\btoda vez\b",
    # it / pl / ko
    r"\bmai\b", r"\bd'ora in poi\b", r"\bda ora in poi\b", r"\bda noi\b",
    r"\bin questo (repo|progetto)\b", r"\bnigdy\b", r"\bzawsze\b", r"\bod teraz\b",
    r"\bu nas\b", r"\bw tym (repo|projekcie)\b", r"항상", r"절대", r"앞으로", r"매번", r"우리 팀",
    # zh / ja
    r"总是", r"始终", r"一律", r"永远", r"以后", r"今后", r"从现在开始", r"从今以后", r"每次",
    r"(这个|我们的)?(仓库|项目)里", r"このリポジトリ", r"このプロジェクトでは",
    r"常に", r"いつも", r"必ず", r"絶対に", r"決して", r"今後", r"これから", r"以降", r"毎回",
)
# Obligation and prohibition: a rule when the sentence is short and not a one-off request.
# A quantity with its unit: what a budget or a limit is stated in.
_BUDGET = (r"\d+\s?(%|ms|мс|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|"
           r"[kmg]b|k|px|rps|retries|times|минут\w*|секунд\w*|час\w*|дн\w*|дней|"
           r"minuten|sekunden|stunden|tage|minutos|segundos|horas|días|dias|heures|jours|"
           r"分钟|秒|小时|天|分|時間|日)(?!\w)")
_OBLIGATION = _words(
    r"\bmust\b", r"\bmustn't\b", r"\bdon't\b", r"\bdo not\b", r"\bshould never\b",
    r"\bnot allowed\b", r"\bforbidden\b", r"\bprohibited\b", r"\bonly use\b", r"\bavoid\b",
    r"\bno more\b", r"\bstick (to|with)\b", r"\b(nothing|no one|nobody) (may|must) be\b",
    # a condition that must hold first: "not without a benchmark that shows it matters"
    r"\bnot without (a|an|the|some|any)\b", r"\b(we're|we are) stuck (on|with)\b",
    r"\bhängen\b.{0,60}\bfest\b", r"\bnichts (aus|von) \S+", r"\bnothing from \S+",
    r"\bnicht ohne\b", r"\bpas sans\b", r"\bno sin\b",
    r"\bnão sem\b", r"\bне без\b", r"\bnon senza\b", r"\bnever\b(?! ?mind)",
    r"\bbloqué(e|s)? (en|sur|à)\b", r"(^|[.;:]\s*)ne pas (?!oublier|hésiter|s'inquiéter)\w+",
    r"(?-i:\bNOT an? (new )?\w+)", r"(^|[.;,]\s*)(touche|lance|fais|mets|change|supprime|pousse|"
    r"commite|ajoute|utilise|installe|modifie)s? pas\b",
    # nothing by hand: "na prod nic ręcznie", "nada a mano en prod"
    # a thing refused with a trailing "no": "no, cron nuevo no.", "Redis não."
    r"(^|[.;:]\s*)(no,\s*)?(?!(creo|acho|por|todavía|aún|ainda|yo|eu|ahora|agora|the|a|an|it|"
    r"that|this|i|we|you|my|our|answer)\b)[\w/-]+( (?!(is|are|was|were|be)\b)[\w/-]+){0,2} "
    r"(no|não)\s*[.!]",
    r"\bnothing (by hand|manually)\b", r"\bnic ręcznie\b", r"\bnada a mano\b",
    r"\brien à la main\b", r"\bnichts (von hand|manuell)\b", r"\bnada na mão\b",
    r"ничего (руками|вручную)", r"不要手动", r"手動で(は)?(何も)?しない",
    r"\b(está|estamos|están) (atascad|atad)\w* (a|en)\b",
    r"\bpres[oa]s? (a|em|no|na)\b",
    r"\bpin(ned)? (it |\S+ )?(to|at)\b",
    # a budget stated as acceptable: "15 minutes stale is fine", "bis 200 ms reicht"
    _BUDGET + r"[^.;!?]{0,60}\b(is|are) (fine|ok|okay|acceptable|good enough)\b",
    _BUDGET + r"[^.;!?]{0,60}\b(reicht|genügt|ist (ok|okay|in ordnung|akzeptabel))\b",
    _BUDGET + r"[^.;!?]{0,60}\b(suffit|est acceptable|ça va)\b",
    _BUDGET + r"[^.;!?]{0,60}\b(basta|es aceptable|está bien|é aceitável|tá bom|está bom)\b",
    _BUDGET + r"[^.;!?]{0,60}(нормально|допустимо|достаточно)",
    _BUDGET + r"[^。；！？]{0,30}(可以接受|就够了|没问题|也行)",
    _BUDGET + r"[^。；！？]{0,30}(で十分|で問題ない|で構わない)",
    r"\bwe('re| are) not (using|pulling|adding|going|doing|touching|shipping)\b",
    r"\bwe (don't|do not|never|won't) (use|pull|add|do|touch|ship|deploy|merge|commit)\b",
    r"\bkeep (functions|files|lines|methods|it|them)\b.*"
    r"\b(under|below|short|small|at most)\b", r"\bno \w+(\s\w+)? (in|on|for) (this|the|our)\b",
    r"\buse \S+(?: \S+)?,? (not|instead of|rather than)\b", r"\bnot \S+,? (use|but)\b",
    # ru
    r"\bне (используй|используем|использовать|надо|нужно|делай|трогай|добавляй|пиши|меняй|"
    r"коммить|пушь|пушить|удаляй|ставь)", r"\bнельзя\b", r"\bобязательно\b",
    r"\bдолж(ен|на|ны|но)\b", r"\bзапрещено\b", r"\bизбегай",
    # de
    r"\b(bitte )?keine?n?\b \w+(\s\w+)? (verwenden|benutzen|nutzen|einbauen|hinzufügen|mehr)\b",
    r"^\s*bitte keine?", r"\b(verwende|benutze|nutze|ändere|committe|pushe|lösche|rühre|"
    r"füge)\w* (\S+ ){0,3}nicht\b", r"\bmuss\b", r"\bmüssen\b", r"\bdarf nicht\b",
    r"\bdürfen nicht\b", r"\bverboten\b", r"\bvermeide",
    # fr
    r"(^|[,;:]\s*|\bet\s+|\bmais\s+)(ne|n')\s*\w+\s+(pas|jamais|plus)\b",
    r"\bil ne faut (pas|jamais)\b", r"\bil faut\b", r"\bdoi(t|vent)\b", r"\binterdit\b",
    r"\bévite",
    # es / pt
    r"\bno (uses|usa|usamos|usar|hagas|toques|añadas|agregues|cambies|subas|borres)\b",
    r"\bdebe(s|mos|n)?\b",
    r"\bhay que\b", r"\btiene(s|n)? que\b", r"\bprohibido\b", r"\bevita",
    r"\bnão (use|usa|usamos|usar|faça|mexa|adicione|mude|suba|apague)\b", r"\bdeve(mos|m)?\b",
    r"\btem que\b", r"\bproibido\b",
    # it / pl / ko
    r"\bnon (usare|usiamo|toccare|aggiungere|fare|cambiare|committare|pushare|cancellare)\b",
    r"\b(devi|dobbiamo|bisogna)\b", r"\bvietato\b", r"\bnie (używa|używaj|rób|dodawaj|ruszaj|"
    r"zmieniaj|commituj|pushuj|usuwaj)\w*", r"\bnie wolno\b", r"\bmusi(sz|my)?\b", r"\bzakaz",
    r"마세요", r"말아 ?주세요", r"하지 ?마", r"쓰지 ?마", r"안 ?됩니다", r"금지", r"반드시",
    r"해야 ?(한다|합니다|해요)", r"고정해", r"돼야", r"되어야",
    # what others rely on: "bitte 429 mit Retry-After – darauf verlassen sich die SDKs"
    r"\b(rel(y|ies)|depend(s)?) on (it|this|that)\b", r"\b(darauf|drauf) verlass",
    r"\bverlass\w* sich (darauf|drauf)\b", r"\b(en|y) dépend(ent)?\b",
    r"\bdependen de (eso|ello|esto)\b", r"\bdependem disso\b",
    r"(на это|на него|от этого) (полагаются|рассчитывают|завязан)",
    # the only way through: "кластер только через VPN", "only via the bastion"
    r"\bonly (through|via|over|from) (the |a |our )?\w+", r"\bтолько через\b",
    r"\bnur (über|via)\b", r"\b(uniquement|seulement) (via|par)\b",
    r"\bsolo (a través de|vía)\b", r"\bsó via\b", r"只能(通过|走)",
    # a budget the work must fit: "buildable in a month by 3 people", "has to run on the Pi 3"
    r"\b(buildable|doable|deliverable|shippable|achievable|feasible) (in|within) (a|an|one|two|"
    r"three|four|\d+) (days?|weeks?|months?|sprints?)\b", r"\bhas to (run|work|fit) on\b",
    # a version still supported: "0.9 держим", "we still support Python 3.9"
    r"\bwe (still )?(support|keep supporting)\b", r"\b(держим|поддерживаем)\b",
    r"\bunterstützen wir (noch|weiterhin)\b", r"\bon supporte (encore|toujours)\b",
    r"\b(seguimos soportando|todavía soportamos|ainda suportamos)\b", r"(还要|仍然|继续)支持",
    r"サポートし続け",
    # someone insisting (en, ru, de, fr/es/pt)
    r"\binsists?\b", r"\binsisting\b", r"настаива", r"bestehen? darauf", r"\binsist(e|ent|en)\b",
    # zh / ja
    r"不要", r"别(用|改|动|加|删|碰|提交|再|上|引入|装|拼|写|搞|跑|开|建|往|刷|推|部署)", r"用不了",
    r"不能(用|上|引入)", r"(我们|这里|项目里|团队)不用", r"不用\s?[A-Z][A-Za-z]+", r"只走",
    r"要[^，。；]{0,20}[A-Za-z`][^，。；]{0,20}[，,]\s?(不然|否则)",
    r"不得", r"禁止", r"必须", r"务必", r"一定要",
    r"只用", r"只能", r"不准", r"不许", r"不让", r"不能用", r"不可以",
    r"しないで", r"ないでください", r"使わないで", r"なければならない", r"なければいけない",
    r"べき", r"てはいけない", r"ちゃだめ",
)
# Flags a person puts on what matters: "Important:", "Wichtig:", "Важно:".
EMPHASIS_RE = re.compile(
    # "important" that marks what is said, not "the important context" it qualifies
    r"\b(importantly|important(?=\s*[:!—-])|(it'?s|it is|very|really|super|most) important|"
    r"important(?= (that|to|for)\b)|^important\b|c'est important|note that|keep in mind|"
    r"remember( that| to)|heads up|crucial|critical|"
    r"rules?|house rules?|conventions?|ground rules)\b|"
    # a list of conditions announced as such: "constraints: …", "Vorgaben:", "几个前提："
    # "remember: …" flags what follows; "remember lower bounds" asks a program to keep them
    r"\bremember\s*[:：]|"
    r"\b(constraints|requirements|restrictions|ограничения|требования|vorgaben|einschränkungen|"
    r"anforderungen|contraintes|exigences|restricciones|requisitos|restrições)\s*[:：]|"
    r"前提|约束|制約|"
    r"правил|\bregeln?\b|\brègles?\b|\breglas?\b|"
    r"\bregras?\b|规矩|规则|规定|ルール|決まり|\bacordate\b|\brecord[áa]\b|\brecuerda\b|"
    r"\blembr[ae]\b|n'oublie pas|\bdenk dran\b|помни|не забывай|覚えて|记住|"
    r"\breminders?\b|напоминаю|\bzur erinnerung\b|\b(pour )?rappel\b|\brecordatorio\b|"
    r"\bi (already )?told you\b|\bas i said\b|\bte lo (he|había) dicho\b|\bya te (lo )?dije\b|"
    r"\bje te l'ai (déjà )?dit\b|\bhab(e)? ich (dir )?(doch )?(schon )?gesagt\b|"
    r"\beu (já )?te disse\b|"
    r"я же (говорил|сказал)|我(已经)?说过|言ったよね|말했잖아|"
    r"\blembrete\b|提醒|念のため|"
    r"\bthe (whole|entire) point (is|was|of)\b|"
    r"\bwichtig\b|\bachtung\b|важно|внимание|\bimportante\b|\batención\b|"
    r"\batenção\b|重要|注意|大事|必ず|"
    # not up for discussion: "one hard rule", "una cosa innegociable", "security policy"
    r"\bnon-?negotiable\b|\bhard (rule|requirement|constraint)\b|\bnicht verhandelbar\b|"
    r"\bnon négociable\b|\binnegociable\b|\binegociável\b|\bnon negoziabile\b|не обсуждается|"
    r"没(得|有)商量|不容商量|譲れない|\b(security|company|team|our|house) polic(y|ies)\b|"
    r"\bpolítica (de seguridad|de segurança|da empresa|de la empresa)\b|"
    r"\bpolitique (de sécurité|de l'entreprise|maison)\b|\b(sicherheits|firmen)richtlinie|"
    r"политика безопасности|安全(策略|政策)|セキュリティポリシー|方針|方针|방침",
    re.IGNORECASE,
)
# Spanish "no" before a verb negates a statement ("no anduvo", "pero no resolvió", "no
# funciona"), it forbids nothing: past and imperfect endings, and the commonest verbs.
_SPANISH_NEGATED_VERB = (
    r"(?:\w+(?:ó|aba|aban|ía|ían|uvo|ieron|aron)\b|(?:resolvio|funciono|rompio|compilo|"
    r"es|está|están|era|fue|hay|va|anda|sé|sabe|funciona|funcionan|sirve|carga|compila|"
    r"corre|aparece|encuentra|existe|puedo|puede|pude|tengo|tiene|hace|veo|entiendo|sale|"
    r"llega|llegan|pide|piden|salen|aparecen|cargan|guarda|muestra|responde|arranca|abre)\b)")
# Plain prohibitions without a modal verb: "no ORMs here", "keine externen Abhängigkeiten".
PROHIBITION_RE = re.compile(
    r"(^|[:;,(]\s*|\b(also|and|but|here|please|dafür|bitte|auch|hier|aber|und|et|mais|y|pero|"
    r"e|mas|so|и|но|так что|donc|alors|daher|also|entonces|então|quindi|поэтому)\s+)"
    r"(żadnych|żadnego|żadnej|no(?!\s+" + _SPANISH_NEGATED_VERB + r"|\s+\S+\s+(aparece|aparecem|"
    r"acontece|fica|ficam|tem|têm|há|está|estão|roda|rodam|sai|mostra|existe|chega)\b)|"
    r"keine?n?|pas d[e']|nada de|"
    r"sem|ni|никаких|никакого|никакой)\s+[`'\"«“@.-]?\w+|"
    r"\b(tabu|taboo|off[- ]limits|no[- ]go|"
    r"табу|под запретом|interdit|prohibido|proibido)\b",
    re.IGNORECASE,
)

# Taste rather than law: these make a preference.
_PREFERENCE = _words(
    r"\bi prefer\b", r"\bwe prefer\b", r"\bprefer\b", r"\bi'd rather\b", r"\bi would rather\b",
    r"\bi like\b", r"\bi don't like\b", r"\bi want\b.*\b(to be|style|format)\b",
    r"\bplease use\b", r"\bi'm a fan of\b",
    r"предпочита", r"мне (больше )?нравится", r"лучше (использовать|писать|делать)",
    r"\bbevorzuge", r"\blieber\b", r"\bmir gefällt\b",
    r"\bje préfère\b", r"\bpréfér", r"\bplutôt\b", r"\bj'aime\b",
    r"\bprefiero\b", r"\bprefiere\b", r"\bme gusta\b", r"\bprefiro\b", r"\bprefere\b",
    r"\bgosto de\b", r"\bmelhor usar\b", r"\bmejor usar\b",
    r"更喜欢", r"偏好", r"优先", r"倾向", r"尽量", r"好む", r"好き", r"の方がいい", r"のほうがいい",
    r"優先",
    r"\bi'd like (it|them|the|to keep|us to)\b", r"\bpreferably\b",
    r"я бы (хотел|предпоч)", r"мне удобнее", r"\bam liebsten\b", r"\bich hätte (lieber|gern)",
    r"\bvorzugsweise\b", r"\bj'aimerais\b", r"\bde préférence\b", r"\bpreferimos\b",
    r"\bprefira\b", r"\bpreferiría\b", r"\bpreferiria\b", r"\bme gustaría\b",
    r"\bde preferencia\b", r"\bde preferência\b", r"好み", r"なるべく", r"できれば",
    r"\bpreferisco\b", r"\bpreferiamo\b", r"\bmeglio (usare|se)\b", r"\bmi piace\b",
    # the way the rest of the code does it: "like the existing tests", "既存のと同じく"
    r"\b(like|same as|consistent with|matching) the (existing|other|rest)\b",
    r"\bwie (die|der|das|den) (bestehenden|vorhandenen|anderen|übrigen)\b",
    r"\bcomme (les|le|la) (existant|autres)", r"\bcomo (los|las|el|la|o|os|a|as) "
    r"(existentes|demás|outr[oa]s|otr[oa]s)\b", r"как (в|и) (остальных|существующих)",
    r"\bcome (gli|i|le) (altri|altre|esistenti)\b",
    r"既存(の(もの)?)?と同じ", r"(和|跟|与)现有的?\S{0,6}一样",
    r"\bwolę\b", r"\bwolimy\b", r"\blepiej (użyć|używać|pisać)\b", r"선호", r"좋겠", r"편해요",
    # a taste shown by asking for more or less of something: "shorter commit messages please"
    r"\b(shorter|longer|smaller|simpler|fewer|terser|plainer)\b[^.!?]{0,40}\bplease\b",
    r"\bkeep (the |our |your )?\w+( \w+)? (short|shorter|brief|concise|terse|simple)\b",
    r"\b(kürzere|einfachere|weniger)\b[^.!?]{0,40}\bbitte\b",
    r"\bplus (courts?|courtes|simples?)\b[^.!?]{0,40}\bs'il te plaît\b|\bplus courts?, stp\b",
    r"\bmás (cortos?|cortas?|simples?)\b[^.!?]{0,40}\bpor favor\b",
    r"\bmais (curtos?|curtas?|simples?)\b[^.!?]{0,40}\bpor favor\b",
    r"покороче", r"короче,? пожалуйста", r"简短一点", r"短めに",
)
# A review of someone's change asked for: "review #88", "revisa el PR de Ana", "ревью ветки".
REVIEW_RE = re.compile(_words(
    r"\b(review|audit|look over|go over)\b.{0,40}(#\d+|\bPR\b|pull request|\bMR\b|merge request|"
    r"\bbranch\b|\bdiff\b|\bchanges\b|\bcommits?\b)",
    r"(#\d+|\bPR\b|pull request|merge request)\W.{0,40}\breview",
    r"\b(revisa|revisar|revise|revisão|revisión|revue|relis|relire|reviewe|überprüf)\w*\b.{0,40}"
    r"(#\d+|\bPR\b|pull request|\brama\b|\bbranche\b|\bbranch\b|\bdiff\b)",
    r"(ревью|ревьюни|проверь|посмотри)\w*.{0,30}(#\d+|\bPR\b|\bпр\b|пулл|ветк|мерж)",
    r"(审查|评审|review|看一下)\S{0,6}(PR|pr|分支|合并请求|#\d+)",
    r"(PR|プルリク|#\d+)\S{0,6}レビュー",
), re.IGNORECASE)
# The assistant telling of a bug it found on the way: "the subagent found a real bug:
# author-time is kept as a string", "нашёл реальный баг".
BUG_FOUND_RE = re.compile(_words(
    r"\b(found|spotted|noticed|uncovered|hit) (a|an|one|another) (real |actual |genuine |"
    r"separate |second )?(bug|defect)\b", r"\b(нашёл|нашел|нашла|заметил) (ещё )?(один |"
    r"реальный |настоящий )?баг", r"\b(encontró|encontré|encontrou|achei) (un|um) (bug|error|erro) "
    r"(real|de verdad|de verdade)\b", r"\ba trouvé un (vrai )?bug\b", r"\bhat einen (echten )?"
    r"(bug|fehler) gefunden\b", r"发现了?一个(真正的)?bug", r"本物のバグ",
), re.IGNORECASE)
# The assistant announcing a try: "I'll try the cheap thing first", "Primero pruebo a …".
TRYING_RE = re.compile(_words(
    r"\b(i'll|i will|let me|let's|first,? i'll) (first )?try\b", r"\btry(ing)? the (cheap|quick|"
    r"simple|easy)\w*\b", r"\bfirst (attempt|try)\b",
    r"\b(primero )?pruebo (a|con)\b", r"\bvoy a probar\b", r"\bprimeiro (tento|testo)\b",
    r"\bvou tentar\b", r"\bj'essaie\b", r"\bje (vais )?(tente|essayer)\b", r"\bessayons\b",
    r"\bich (versuche|probiere)\b", r"\b(попробую|пробую|сначала попробую)\b",
    r"先试", r"试试", r"試して(み|み)", r"試します",
), re.IGNORECASE)
# The assistant saying it has found the cause: what follows is the diagnosis.
FOUND_IT_RE = re.compile(
    r"^\W*(found it|got it|there it is|that's it|encontrad[oa]|achei|lo encontré|encontré|"
    r"trouvé|gefunden|нашёл|нашел|вот оно|找到了|找到原因|見つけ(た|ました))\W*$",
    re.IGNORECASE)
# What never happens is a symptom, not a rule: "o ficheiro nunca aparece", "it never loads".
NEVER_HAPPENS_RE = re.compile(
    r"\b(never|nunca|jamais|nie|niemals) (\w+ )?(appears|arrives|loads|finishes|returns|shows|"
    r"works|fires|completes|ends|happens|gets (called|sent|saved)|aparece|llega|chega|funciona|"
    r"carga|carrega|termina|acaba|sale|sai|vuelve|volta|arrive|apparaît|marche|fonctionne|"
    r"se termine|(kommt|erscheint|lädt|funktioniert|endet)( an)?)\b|"
    r"никогда не (приходит|появляется|грузится|работает|заканчивается)|从来没(有)?\S{1,4}|"
    r"一度も\S{1,6}(ない|ません)",
    re.IGNORECASE)
# Phrases that look like rules but ask for nothing lasting.
SELF_REPORT_RE = re.compile(
    r"\bi (never|always|don't|do not|didn't|did not) (call|called|use|used|did|do|had|touch|"
    r"touched|wrote|write|run|ran|set|saw|see|get|got|import|imported|change|changed)\b",
    re.IGNORECASE,
)
NOT_A_RULE_RE = re.compile(
    r"\b(don't|do not) (worry|bother|hesitate|mind|forget|know|think|see|understand|have|"
    r"expect|believe|remember|recall|suppose|need"
    r" to worry)\b|\bmake sure (it|this|that|you) (works|passes|runs)\b|\bnever mind\b|"
    r"\b(don't|do not) (change|touch|modify|edit|commit|push|fix|write) (anything|it|this|that|"
    r"them|yet)\b|\bjust (explain|tell|show|look)\b|"
    r"\b(we|it|they|this|that|he|she) still (don't|do not|doesn't|does not|can't|cannot|won't)\b",
    re.IGNORECASE,
)

# "We ship on Tuesdays", "our API is versioned": a team's convention stated as a fact.
RULE_SUBJECT_RE = re.compile(
    r"^\s*(we|our (team|code|api|repo|project)|this (repo|project|codebase))\b.*\b(use|ship|deploy|"
    r"release|run|write|keep|follow|merge|name|version|pin|test|target)\w*\b",
    re.IGNORECASE,
)
LASTING_RE = re.compile(_LASTING, re.IGNORECASE)
# A recurring day: with a team's convention ("we ship on Tuesdays") it makes a rule.
SCHEDULE_RE = re.compile(_words(
    r"\b(on )?(mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b",
    r"по (понедельникам|вторникам|средам|четвергам|пятницам|субботам|воскресеньям)",
    r"\b(montags|dienstags|mittwochs|donnerstags|freitags|samstags|sonntags)\b",
    r"\blos (lunes|martes|miércoles|jueves|viernes|sábados|domingos)\b",
    r"\b(às|nas) (segundas|terças|quartas|quintas|sextas)\b", r"每周[一二三四五六日天]",
    r"毎週[月火水木金土日]曜",
), re.IGNORECASE)
OBLIGATION_RE = re.compile(_OBLIGATION, re.IGNORECASE)
PREFERENCE_RE = re.compile(_PREFERENCE, re.IGNORECASE)

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
# A reported problem: what turns a request into a bug report.
PROBLEM_RE = re.compile(_words(
    r"\b(fail(s|ed|ing)?|bug|broken|crash(es|ed|ing)?|wrong|duplicates?|twice|regression|flaky|"
    r"hangs?|leak(s|ing)?|mismatch|exception|traceback|times? out|doesn't work|not working|"
    r"stopped working|panic|segfault|chokes?|throws|raises|errors out|falling over|falls over|"
    r"oom(-killed)?|out of memory|too slow|way too slow)\b",
    r"\b(gets?|getting|returns?|returning|with|an?) (an? )?(\w+ )?(error|500|404)\b",
    # an HTTP status seen, something that stopped happening: "gives 403 in the network
    # tab", "stopped saving after #214", "no longer loads"
    r"\b(gives?|giving|gave|got|returns?|returning|returned|throws?|answers?) (an? |me )?"
    r"(http )?[45]\d\d\b", r"\bstopped (\w+ing)\b", r"\bno longer (works?|\w+s)\b",
    # an exception named in passing: "No worker aparece um DoesNotExist"
    r"(?-i:\b[A-Z]\w*(Error|Exception)\b|\bDoesNotExist\b)",
    r"ошибк", r"падает", r"сломал", r"не работает", r"баг", r"дубл", r"подвиса", r"зависа",
    r"тормоз", r"съезжа", r"не (приходит|приходят|доходит|доходят|сохраняет|грузит)",
    r"fehler", r"kaputt",
    r"schlägt fehl", r"stürzt ab", r"doppelt", r"erreur", r"plante", r"échoue", r"cassé",
    r"en double", r"deux fois", r"falla", r"roto", r"duplicad", r"dos veces", r"erro\b",
    r"\bfalh(a|as|am|ou|aram|ando)\b", r"\bnão (chega|aparece|carrega|funciona|salva|abre)\b",
    r"\bnunca (aparece|chega|llega|carga)\b",
    r"\bno (llega|llegan|aparece|aparecen|carga|cargan|funciona|funcionan|pide|guarda|arranca)\b",
    r"quebr", r"duas vezes", r"报错", r"错误", r"失败", r"崩溃", r"重复", r"エラー", r"失敗",
    r"落ちる", r"重複", r"バグ", r"不再", r"卡住", r"卡死", r"死机", r"没反应",
    r"errore", r"duplicat", r"błąd", r"dubluj", r"podwójn",
    r"에러", r"오류", r"깨져", r"중복",
), re.IGNORECASE)
# A labelled line of a wrap-up that names a cause or a fix.
# A labelled line of a wrap-up that states the fix: part of the bug, not a decision.
FIX_LABEL_RE = re.compile(
    r"^\W*(key )?(fix(es|ed)?|solution|correctif|correction|arreglo|solución|correção|"
    r"исправление|lösung|behoben|修复|修正|対応)\b[^:：]{0,30}[:：]",
    re.IGNORECASE,
)
CAUSE_LABEL_RE = re.compile(
    r"^\W*(root cause|cause|problem|issue|the bug|why( it (broke|failed|happened|crashed))?|"
    r"what (was wrong|happened|broke)|ursache|problem|warum|причина|проблема|почему|"
    r"cause racine|pourquoi|causa|por qu[ée]|原因|為什麼|为什么|問題|なぜ)\W*[:：]\s*(?P<text>.+)$",
    re.IGNORECASE,
)
# The assistant announcing what it found wrong: "Deux problèmes dans ra_ajax_book :", "the
# bug is", "问题出在" — a bug report, however the user worded what they saw.
DIAGNOSIS_RE = re.compile(_words(
    r"\b(two|three|several|a few|\d|both) (problems|bugs|issues)\b", r"\bобе проблемы\b",
    r"\bbeide (probleme|fehler)\b", r"\bles deux (problèmes|bugs)\b",
    r"\bambos (problemas|bugs|errores|erros)\b", r"两个问题",
    r"\bthe (bug|problem|issue|root cause) (is|was|here is)\b", r"\bfound (it|the (bug|cause))\b",
    r"\b(deux|trois|plusieurs) (problèmes|bugs|soucis)\b", r"\ble (problème|bug|souci) "
    r"(est|vient|c'est)\b", r"\b(zwei|drei|mehrere) (probleme|bugs|fehler)\b",
    r"\bdas problem (ist|liegt)\b", r"\bder (fehler|bug) (ist|liegt)\b",
    r"\b(dos|tres|varios) (problemas|bugs|errores)\b", r"\bel (problema|bug|error) (es|está|"
    r"viene)\b", r"\b(dois|três|vários) (problemas|bugs|erros)\b", r"\bo (problema|bug|erro) "
    r"(é|está|vem)\b", r"\b(две|три|несколько) (проблемы|ошибки|бага)\b", r"\bпроблема в\b",
    r"\b(due|tre) (problemi|bug)\b", r"\bil problema è\b", r"(两|三|几)个(问题|bug|坑)",
    r"问题(是|在于|出在)", r"(二つ|2つ|三つ|3つ)の(問題|バグ)", r"問題は", r"문제는",
    r"(두|세) (가지 )?문제",
    # "Aquí hay un problema: …", "there's a bug here"
    r"\b(here's|here is|there's|there is|i (see|found|noticed)) (a|one|another) (real )?"
    r"(problem|bug|issue)\b", r"\bhay (un|otro) (problema|bug|error)\b",
    r"\bil y a (un|une|un autre) (problème|bug|souci)\b",
    r"\b(da ist|es gibt) (noch )?(ein|einen) (problem|bug|fehler)\b",
    r"\b(há|tem) (um|outro) (problema|bug|erro)\b", r"\bc'è un (problema|bug)\b",
    r"(тут|есть|вот) (ещё )?(одна )?проблема", r"有(个|一个)(问题|bug)", r"問題があります",
), re.IGNORECASE)
# An answer that leaves the decision to someone else: the question stays open.
UNDECIDED_RE = re.compile(_words(
    r"\b(product|business|judgement|judgment) (call|decision)\b", r"\bask whoever\b",
    r"\b(up to you|your call|for you to decide|needs? (a|your) decision|worth discussing|"
    r"(decide|discuss) (it |this )?(as a|with the|in the) team|open question|hasn't been decided|"
    r"not decided|i (didn't|did not|haven't) (build|implement|change|add)\w* (any|it|that|this|"
    r"either))\b",
    r"решать вам", r"обсудить с командой", r"im team entscheiden", r"solltet ihr .*entscheiden",
    r"nichts davon eingebaut", r"à vous de (voir|décider)", r"à décider", r"en équipe",
    r"decidir (en|con el) equipo", r"decidan", r"a decidir", r"decidir com o time",
    r"vocês decidem", r"由你们决定", r"团队决定", r"待定", r"チームで(決め|判断)", r"ご判断",
    r"決めてから", r"決める必要", r"\bteamfrage\b", r"\b(a )?team question\b",
    r"\bquestion for the team\b", r"nichts davon geändert", r"question d'équipe",
    r"pregunta para el equipo", r"pergunta para o time", r"вопрос для команды",
    r"questione di squadra", r"团队的?问题", r"チームの判断", r"先(要)?决定",
    r"\bdecide (that )?first\b", r"erst entscheiden",
    r"décider d'abord", r"decidir primero", r"decidir primeiro", r"сначала решить",
    # a decision still to be taken: "falta decidir quién se entera", "il reste à décider"
    r"\b(still (need|have) to|needs? to be|has yet to be|remains to be) decided\b",
    r"\b(falta|queda|resta) (por )?decidir\b", r"\breste à décider\b",
    r"\bsin decidir\b", r"\bpas (encore )?décidé\b", r"\bnoch nicht entschieden\b",
    r"\b(ainda )?não (foi )?decidido\b", r"\bsem decisão\b", r"\bне решено\b", r"还没定",
    r"\bnon (ancora )?deciso\b", r"\bnie zdecydowan", r"\bnog niet beslist\b",
    r"\bnoch (zu )?entscheiden\b", r"\b(нужно|надо|предстоит|осталось) решить\b",
    r"还(没|要|得)决定", r"\bfalta decidir\b", r"\bresta (da )?decidere\b",
), re.IGNORECASE)
# A question handed to someone who can answer it: "ask Priya", "问问小王", "lo tiene que decir
# legal", "faudra demander à Claire" — open until they do.
HANDOFF_RE = re.compile(_words(
    r"\b(ask|asking|check with|run it by|clarify with)\s+(?!(you|me|for|it|about|again|"
    r"the agent|claude|whoever)\b)[\w-]+", r"\b(is|it's) (their|his|her) call\b",
    r"\b\w+ (has|have) to decide\b", r"\bup to (legal|product|ops|security|\w+ team) to\b",
    r"\bfrag(en|t)? (\w+ )?(bei )?[A-ZÄÖÜ]\w+", r"\bmit \w+ (klären|abklären|absprechen)\b",
    r"\bmuss \w+ entscheiden\b",
    r"\bdemander à\b", r"\bvoir avec\b", r"\bdemande à\b", r"\b\w+ doit (le )?décider\b",
    r"\bpreguntar(le)? a\b", r"\bpregunta a\b", r"\bconsultar(lo)? con\b",
    # the person asking themselves: "lo de la alerta le pregunto a Vale", "je demande à Paul"
    r"\b(le |les )?pregunto a\b", r"\b(lhe )?pergunto (a|ao|à|pro|pra)\b", r"\bje demande à\b",
    r"\bich frage (?-i:[A-ZÄÖÜ])\w+", r"\bfrage ich (?-i:[A-ZÄÖÜ])\w+", r"\b(gli |le )?chiedo a\b",
    r"\b(lo|eso lo) (tiene que|debe|va a) (decidir|decir)\b", r"\blo decide\b",
    r"\bperguntar (a|ao|à|pro|pra)\b", r"\bpergunta (a|ao|à|pro|pra)\b", r"\bver com (o|a)\b",
    r"\bquem decide\b", r"\bchiedere a\b", r"\bchiedi a\b", r"\bdecide \w+\b(?= e| \.)",
    r"\bспрос(и|ить|им|ите|ю)\b", r"\bспрошу\b", r"\bуточн(ю|ить|и|им) у\b", r"\bрешает \w+",
    r"问问", r"问一下", r"得问", r"要问", r"去问", r"问[老小阿][\u4e00-\u9fff]", r"由\S{1,8}决定",
    r"\S{1,6}说了算",
    r"に聞(いて|く|かない)", r"に確認(して|する|しない)", r"に相談", r"が決める",
    r"에게 물어", r"한테 물어",
    r"\b(za|s)?pyta(m|my|ć|j)? \w+", r"\bpyta \w+", r"\bvraag (het )?(aan )?\w+",
    r"\bvragen aan\b", r"\b(navragen|nagaan) bij\b",
    r"\bi'll (bring|raise) (it|this|that) (up )?(on|at|in|with|friday|monday|tomorrow)\b",
    # parked for a meeting: "let's bring it up at the standup"
    r"\b(discuss|bring (it|this) up|talk about (it|this)|decide) (at|in) (the |tomorrow's |next |"
    r"our )?(meeting|standup|stand-up|retro|planning|sync|weekly)\b",
    r"на (встрече|планёрке|планерке|созвоне|стендапе|ретро)", r"\bim (meeting|standup|weekly|"
    r"jour fixe)\b", r"\ben la (reunión|daily|retro|planning)\b", r"\bna (reunião|daily|retro)\b",
    r"\bà la (réunion|rétro|daily)\b", r"在(周会|例会|站会|会上)", r"(会議|定例|朝会)で",
), re.IGNORECASE)
# Wondering aloud: a question, however it ends ("いずれ外すべきか気になってる", "I wonder
# whether we should drop it") — never a rule, though it says "should".
WONDER_RE = re.compile(_words(
    r"\bi (wonder|was wondering|am wondering|'m wondering) (if|whether|why|how)\b",
    r"\bwondering (if|whether)\b", r"\bich frage mich,? ob\b", r"\bje me demande si\b",
    # not knowing, said so: "keine ahnung ob das backend die sortierung stabil hält"
    r"\bno idea (if|whether|how|why|what|who|about)\b",
    r"\bkeine ahnung,? (ob|wie|warum|wer|was)\b",
    r"\baucune idée (si|de|pourquoi|comment)\b", r"\bni idea (si|de|por qué|cómo)\b",
    r"\bnão faço (a menor )?ideia (se|de|por que|como)\b", r"понятия не имею", r"без понятия",
    r"\bnessuna idea (se|di)\b", r"\bnie mam pojęcia\b", r"\bgeen idee (of|hoe|waarom)\b",
    r"\bme pregunto si\b", r"\bme pergunto se\b", r"\bmi chiedo se\b",
    r"\bинтересно,? (стоит|нужно|надо|ли)",
    r"我在想", r"不知道(要不要|该不该|是否)", r"気になって", r"気になる", r"べきか(な|どうか)",
    r"할지 궁금",
), re.IGNORECASE)
# A request that names how to build it: "store keys in postgres", "pool them", "改成游标分页".
DIRECTIVE_RE = re.compile(_words(
    r"^(please |so |then |just )?(use|store|keep|switch( it| them)? to|move (it |them )?to|pool|"
    r"cache|replace|put|go with|make (it|them))\b",
    r"^(bitte )?(nimm|nutze|verwende|speicher\w*|wechsel\w*|stell\w* \S+ auf)\b",
    r"^(utilise|passe (à|en|par)|stocke|mets|garde|remplace)\b",
    # es / pt share "usa", "utiliza", "guarda"
    r"^(usa|utiliza|guarda|pasa(lo)? a|cambia(lo)? a|pon|reemplaza|passa (a|para)|muda para|"
    r"coloca|troca)\b",
    r"^(metti|passa a|sostituisci)\b", r"^(используй|переведи|храни|замени|перенеси)",
    # "convierte los md a ISO": turn what exists into the form that stays
    r"^(please )?(convert|migrate|rewrite|move) (all |the |them |it |these )",
    r"^(convierte|conviértelos|pasa los|migra)\b", r"^(konvertier|wandle|migrier)\w*\b",
    r"^(convertis|convertir|migre)\b", r"^(converta|converte|migra)\b",
    r"^(конвертируй|преобразуй)", r"^(转换|转成|迁移)", r"(に変換して)",
    r"^(użyj|przenieś|zamień|trzymaj)\b", r"(改成|换成|改为|存到)",
    r"(にして|に変えて|で保存して|に移して)", r"(로|으로) (바꿔|옮겨)",
), re.IGNORECASE)
# The person saying what they have not done yet: "I haven't put the index on prod yet".
USER_NOT_YET_RE = re.compile(_words(
    r"\b(i|we) (haven't|have not|didn't|did not)\b.{3,80}\byet\b",
    r"\b(i|we) still (need|have) to\b",
    r"\b(ich|wir) (habe|haben)\b.{0,60}\bnoch nicht\b",
    r"\b(je n'ai|on n'a|nous n'avons) pas encore\b",
    r"\b(todavía|aún) no (he|hemos)\b", r"\b(eu|a gente|nós) ainda não\b",
    r"\b(я|мы) (ещё|еще) не\b",
    r"\bnon (ho|abbiamo) ancora\b", r"我(们)?还没", r"まだ.{0,30}(ていません|てない|していない)",
), re.IGNORECASE)
# A session opened as a trial of the agent or of a tool around it, not as work.
REHEARSAL_RE = re.compile(_words(
    r"\btest (conversation|session|chat|run with you)\b", r"\b(just|only) (testing|a test)\b",
    r"\bthis is (just |only )?a test( session| conversation)?[.!,]",
    r"\btesting (you|claude|the agent|how you|how this)\b",
    r"\btestgespräch\b", r"\bnur ein test\b", r"\bconversation de test\b",
    r"\bjuste un test\b", r"\bconversación de prueba\b", r"\bsolo (es )?una prueba\b",
    r"\bconversa de teste\b", r"\bsó um teste\b", r"тестов(ый|ая) (разговор|диалог|сессия|чат)",
    r"просто тест", r"测试(对话|会话)", r"只是(个)?测试", r"テスト(会話|セッション)",
    r"ただのテスト",
), re.IGNORECASE)
# A person asking for an answer, not a change: "quick one, no changes: what does it do?"
NO_CHANGES_RE = re.compile(_words(
    r"\bno changes\b", r"\b(don't|do not) (change|touch|edit|modify) (anything|a thing)\b",
    r"\bchange nothing\b", r"\b(just|only) (explain|tell me|read)\b", r"\bread[- ]only\b",
    r"\bnichts ändern\b", r"\bkeine änderungen\b", r"\bne (change|touche|modifie) rien\b",
    r"\bsans (rien )?(changer|modifier)\b", r"\bsin cambi(ar|os)\b",
    r"\bno (cambies|toques) nada\b",
    r"\bsem (mudar|mexer|alterar)\b", r"\bnão (mude|mexa|altere) (em )?nada\b",
    r"ничего не (меняй|трогай|меняя)", r"без изменений", r"不要(改|动)(任何)?(东西|代码)?",
    r"(変更|修正)(は)?しないで", r"\bniente modifiche\b", r"\bbez zmian\b",
    # "not asking you to change anything", "ik wil niks veranderen", "não é pra mexer"
    r"\bnot (asking|wanting) (you )?to (change|touch|fix|edit) (anything|a thing)\b",
    r"\b(no need|not going) to (change|touch|fix) (anything|a thing)\b",
    r"\b(just|only|purely|pure) (curious|curiosity)\b", r"\bout of curiosity\b",
    r"\b(niks|niets) (veranderen|aanpassen|wijzigen)\b", r"\bnieuwsgierig",
    r"\bnão é (pra|para) mexer\b", r"\bnão precisa (fazer|mexer|mudar) nada\b",
    r"\bs[óo] curiosidade\b", r"\bno quiero (cambiar|tocar) nada\b", r"\bsolo curiosidad\b",
    r"\bpor curiosidad\b", r"\bnichts anfassen\b", r"\b(nur|reine) neugier", r"\bje ne veux rien "
    r"(changer|toucher|modifier)\b", r"\bpar (pure )?curiosité\b", r"\bnon (cambiare|toccare) "
    r"(niente|nulla)\b", r"\bsolo curiosità\b", r"\bnic nie zmieniaj\b", r"\bz ciekawości\b",
    r"просто (интересно|любопытно)", r"из любопытства", r"(変え|触ら|いじら)ないで", r"興味本位",
    r"(不用|别|不要)改", r"只是好奇", r"바꾸지 마", r"궁금해서",
), re.IGNORECASE)
# The person picking, in their words: "let's do vite", "let's go with B", "vamos con Redis".
CHOICE_RE = re.compile(_words(
    # (not a go-ahead: "let's do it", "let's set up the repo")
    r"\blet'?s (do(?! (it|this|that|so)\b)|go with|use|pick|choose|stick with|switch to|"
    r"turn (on|off)|set(?! up\b)|call it|name it|keep)\b",
    r"\bvamos (con|a usar)\b", r"\bnehmen wir\b", r"\bon (part sur|prend)\b",
    r"\bvamos de\b", r"\bдавай(те)? (сделаем|возьм[её]м|оставим)\b", r"就用", r"にしよう",
), re.IGNORECASE)
# A request to be taught: what comes back is general knowledge, not the project's.
EXPLAIN_RE = re.compile(_words(
    r"\bexplain\b", r"\bteach me\b", r"\bwhat (is|are) (a|an|the)?\s?\w+\??$",
    r"\bhow does \w+( \w+)? work\b", r"\bexpl[ií]ca(me|nos|r)?\b", r"\bensé[ñn]ame\b",
    r"\bqu[ée] es (un|una|el|la)?\b", r"\bexpli(que|quez|quer)\b", r"\bc'est quoi\b",
    r"\berkl[äa]r\w*\b", r"\bwas ist (ein|eine|der|die|das)?\b", r"\bo que é\b",
    r"\bspiega\w*\b", r"\bобъясни\w*\b", r"\bчто такое\b", r"解释", r"什么是", r"説明して",
    r"とは", r"설명해",
), re.IGNORECASE)
# Work a person names for later in their last words: "we'll need to", "il faudrait".
LATER_WORK_RE = re.compile(_words(
    r"\bwe('ll| will) (need|have) to\b", r"\bwe (should|need to|still need to)\b",
    r"\bsomeone (should|needs to)\b", r"\bit would be (good|nice) to\b",
    r"\b(needs?|will need) (a|an|the|to)\b.{0,60}\b(at some point|eventually|someday|one day)\b",
    r"\b(is|are) (long )?overdue\b", r"\büberfällig\b", r"\ben retard\b", r"давно пора",
    r"нужно будет", r"надо будет", r"стоит (потом|ещё)", r"wir (sollten|müssen noch)",
    r"il faudrait", r"on devrait", r"il faudra", r"habría que", r"deberíamos", r"hay que",
    r"a gente (precisa|deveria)", r"precisamos", r"deveríamos", r"(还|以后)?需要", r"应该",
    r"必要がある", r"したほうがいい",
    # after a milestone: "las traduce Marta después del lanzamiento"
    r"\bafter (the )?(launch|release|deploy|demo|migration|freeze|go-live)\b",
    r"\bdespués del? (lanzamiento|release|deploy|la demo|la migración)\b",
    r"\bnach dem (release|launch|deploy|go-live|launch)\b",
    r"\baprès (le |la )?(lancement|release|mise en prod|démo|migration)\b",
    r"\bdepois do (lançamento|release|deploy)\b", r"после (релиза|запуска|деплоя|миграции)",
    r"(上线|发布)(之)?后", r"リリース後", r"\bdopo il (rilascio|lancio|deploy)\b",
    # a day named for it: "mach ich nächste woche", "je reprends lundi"
    r"\b(tomorrow|next week|nächste woche|morgen|demain|la semaine prochaine|mañana|"
    r"la (semana que viene|próxima semana)|amanhã|(na )?semana que vem|próxima semana|завтра|"
    r"на следующей неделе|domani|(la )?prossima settimana|jutro|w przyszłym tygodniu|"
    r"volgende week|yarın|haftaya)\b", r"明天", r"下周", r"明日", r"来週", r"내일", r"다음 주",
    # a weekday it waits for: "la migration attendra lundi", "bis Montag", "until Monday"
    r"\b(until|till|by|next) (monday|tuesday|wednesday|thursday|friday)\b",
    r"\b(attendra|part|partira|reprendra|jusqu'à|d'ici) (lundi|mardi|mercredi|jeudi|vendredi)\b",
    r"\b(bis|ab) (montag|dienstag|mittwoch|donnerstag|freitag)\b",
    r"\bhasta el (lunes|martes|miércoles|jueves|viernes)\b",
    r"\baté (segunda|terça|quarta|quinta|sexta)\b",
    r"\bдо (понедельника|вторника|среды|четверга|пятницы)\b",
), re.IGNORECASE)
# A request to leave something for later: a todo in the user's own words.
DEFER_RE = re.compile(_words(
    r"\bleave (it|that|this|the \w+( \w+)?) (for|to) (later|another|a separate|a follow|the next|"
    r"tomorrow)", r"\b(for|in) a (separate|later|follow-?up|different) (pr|commit|change|ticket|"
    r"issue|task)\b", r"\b(later|tomorrow|next week|next sprint)\b.*\b(we'll|we will|i'll|i will|"
    r"let's)\b", r"\b(we'll|we will|i'll|i will|let's) .*\b(later|tomorrow|next week|"
    r"separately)\b",
    r"\b(in|for) (another|the next) (pr|commit|change|ticket|issue|task)\b",
    r"\bdans un autre ticket\b", r"\bin einem anderen ticket\b", r"\ben otro ticket\b",
    r"\bem outro ticket\b", r"в другом (тикете|задаче)",
    r"(оставим|отложим|сделаем) (на )?потом", r"в отдельном (пр|pr|коммите)", r"später",
    r"separaten (pr|commit)", r"plus tard", r"dans une (autre|prochaine) pr", r"más tarde",
    r"otro pr", r"depois", r"outro pr", r"以后再", r"下次", r"別のpr", r"後で",
    r"più tardi", r"\bdomani\b", r"\bpóźniej\b", r"\bjutro\b", r"다음에", r"나중에",
    r"\bleave \S+( \S+)? (alone )?for now\b",
    # the person takes it on themselves: still open work, only not the agent's
    r"\bi'll (handle|take care of|deal with|sort out|follow up on) (the|that|it|this)\b",
    r"\bi'll do (it|that|this|the \w+( \w+)?) myself\b", r"\bmach(e)? ich selbst\b",
    r"\bje (le |la )?ferai moi-même\b", r"\blo hago yo\b", r"\beu mesmo faço\b",
    r"我自己(来|做)", r"自分でやります",
    r"\b(darum )?kümmere ich mich\b", r"\bje m'en (occupe|charge)\b", r"\bme encargo\b",
    r"\bdeixa comigo\b", r"\beu cuido\b", r"\bя сам\w* (займусь|сделаю|разберусь)",
    r"\bзаймусь (этим|сам)", r"我来(处理|跟进|搞定)", r"こちらで(対応|やります)",
    # ... at a time they name: "la copia la lanzo yo el domingo", "下个迭代再删"
    r"\b(lo|la|los|las) \w+(o|é) yo\b", r"\bi'll\b.{0,60}\b(tonight|(on )?(mon|tues|wednes|"
    r"thurs|fri|satur|sun)day|this (afternoon|evening|weekend))\b",
    # a thing named, then "later": "debounce потом", "the README later"
    r"(^|[,;:]\s*)(?!(see|talk|catch|speak|bye|cu|only|even|much|way|too|until|till|but)\b)"
    r"[^\s,;:]+( [^\s,;:]+){0,3} (later|потом|позже|später|plus tard|más tarde|después|depois|"
    r"mais tarde|dopo|以后再说|后面再说|あとで|後で)\s*([,;.!]|$)", r"\bje (le |la |les )?\w+"
    r".{0,40}\b(demain|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|ce soir)\b",
    r"\b(mache|starte|erledige) ich\b.{0,40}\b(morgen|montag|dienstag|mittwoch|donnerstag|"
    r"freitag|samstag|sonntag|heute abend)\b", r"(下个|下一个)(迭代|版本|sprint|冲刺)",
    r"(明天|下周|回头|之后|改天|周末)再", r"(明日|来週|週末)(に)?(やります|対応)",
    # a ticket the person opens for it: "I'll make a ticket", "заведу тикет"
    r"\bi'll (make|open|file|create|write|raise) (a |an )?(ticket|issue|jira|bug)\b",
    r"\bje (fais|crée|ouvre) un ticket\b",
    r"\b(mach|schreib|leg)\w* ich (ein|einen) (ticket|issue)",
    r"\b(abro|creo|hago) un (ticket|issue)\b", r"\b(abro|crio|faço) um (ticket|issue)\b",
    r"завед[уём] (тикет|задачу|issue)", r"(提|建|开)(个|一个)?(工单|issue|ticket)",
    r"チケット(を)?(切|作)",
    r"\bon verra\b", r"\b(after|après|nach|después de|depois d[aoe]s?|после|dopo) (the |la |le |"
    r"der |dem |el |o |a |il )?(demo|démo|release|launch|lancement|sprint|deadline|freeze|audit|"
    r"релиза|демо)\b",
    r"^(明天|下周|周末)(上午|下午|早上|晚上)?\s?\S",
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

# A person saying the last attempt failed.
DID_NOT_WORK_RE = re.compile(_words(
    r"\b(didn't|did not|doesn't|does not|still (doesn't|does not|isn't|is not))\s+(work|help|"
    r"fix)\b", r"\bstill (fails|failing|broken|crash(es|ing)?|the same|red)\b",
    r"\bnot working\b", r"\bno (real |visible |measurable )?(luck|change|difference|improvement)\b",
    r"\bstill (no|not|nothing)\b", r"\bsigue (sin|igual)\b", r"\bcontinua (sem|igual)\b",
    r"\btoujours pas\b", r"\bimmer noch (nicht|kein)", r"(всё|все) (ещё|еще) не\b", r"还是没",
    r"\bsame (error|problem|issue)\b",
    r"\bthat broke\b", r"\bmade it worse\b", r"\brevert (it|that|this)\b", r"\bundo (it|that)\b",
    r"не работает", r"не помогло", r"всё ещё (падает|не)", r"та же ошибка", r"откати",
    r"funktioniert (immer noch )?nicht", r"hat nicht geholfen", r"gleiche fehler",
    r"ça ne marche (toujours )?pas", r"ne fonctionne pas", r"toujours la même erreur",
    r"n'aidait pas", r"n'a pas aidé", r"n'a rien changé", r"ne suffisait pas", r"no ayudó",
    r"no bastó", r"não ajudou", r"não bastou", r"half nicht", r"hat nichts gebracht",
    r"reichte nicht", r"не помог", r"не хватило", r"non ha aiutato", r"non è bastato",
    r"nie pomogło", r"nie wystarczyło", r"没帮助", r"没什么用", r"効かなかった", r"足りなかった",
    r"도움이 안", r"효과가 없",
    r"no funciona", r"sigue fallando", r"no sirvió", r"mismo error", r"não funciona",
    r"não funcionou", r"continua falhando", r"mesmo erro",
    r"不行", r"没用", r"还是(报错|失败|不行)", r"不起作用", r"没有效果",
    r"うまくいかない", r"動かない", r"まだ(エラー|失敗)", r"効果がない", r"直っていない",
    # the change is turned down: "take it out", "not good enough", "that won't do"
    r"\b(take|pull|rip) (it|that|this) out\b", r"\bremove (it|that|this)\b",
    r"\b(won't|wouldn't|doesn't|does not) (work|do|fly|help)\b", r"\bnot good( enough)?\b",
    r"\bno good\b", r"\bstill (slow|takes|too)\b",
    r"non funziona", r"ancora (non|rotto|duplica)", r"nie działa", r"nadal", r"wciąż",
    r"안 ?돼요", r"여전히", r"안 ?됩니다",
    r"не подойд", r"не годится", r"убери", r"откатывай", r"nicht gut", r"nimm (das|es) raus",
    r"reicht nicht", r"pas terrible", r"ne marchera pas", r"enlève", r"retire[sz]?[- ]le",
    r"no me vale", r"no vale", r"no servir[íi]a", r"no sirve", r"s[áa]calo", r"qu[íi]talo",
    r"não serve", r"não vai funcionar", r"tira (isso|isto)", r"不好", r"去掉", r"删掉",
    r"ダメ", r"だめ", r"外して",
), re.IGNORECASE)

# The assistant telling that something it tried changed nothing: "bumping the pool to 50
# made no difference", "le retry n'a rien changé" — a failed attempt wherever it is said.
NO_EFFECT_RE = re.compile(_words(
    r"\b(made|makes|had|has) no (real |visible |measurable )?(difference|effect|impact)\b",
    r"\b(didn't|did not|doesn't|does not) (help|change anything|make (a|any) difference|"
    r"fix (it|anything|the \w+))\b", r"\bno (luck|dice)\b", r"\bsame (result|error|behaviou?r) "
    r"(again|as before)\b", r"\b(was|is) not (enough|it)\b",
    r"n'a rien changé", r"n'a pas aidé", r"ne change rien", r"hat nicht geholfen",
    r"hat nichts (gebracht|geändert)", r"keinen unterschied", r"no ayudó", r"no cambió nada",
    r"no hizo (ninguna )?diferencia", r"não ajudou", r"não mudou nada", r"não fez diferença",
    r"не помогло", r"ничего не (изменило|дало)", r"без изменений", r"non ha aiutato",
    r"non è cambiato nulla", r"nie pomogło", r"nic nie zmieniło", r"hielp niet",
    r"maakte geen verschil", r"işe yaramadı", r"fark etmedi", r"没(有)?(帮助|效果|用)",
    r"没有(任何)?变化", r"効果(が|は)?(ない|なかった|なし)", r"変わらなかった", r"변화가 없",
    r"효과가 없", r"도움이 안",
), re.IGNORECASE)

# A person turning down what the assistant just proposed: "no, wrong — use jsonb".
# The person doubting an answer: "I don't think that's it", "are you sure?", "本当に？".
DOUBT_RE = re.compile(_words(
    r"\bi don'?t think (that'?s|so|it'?s|this is)\b", r"\bare you sure\b", r"\breally\b[^.!]*\?",
    r"\bthat'?s not (it|right|the one)\b", r"\bbist du sicher\b", r"\bglaube ich nicht\b",
    r"\bt'es sûr\b", r"\bvous êtes sûr\b", r"\bje ne pense pas\b", r"\bno creo\b",
    r"\bestás seguro\b", r"\bacho que não\b", r"\btem certeza\b", r"не думаю", r"ты уверен",
    r"вы уверены", r"本当に", r"ほんとに", r"確かですか", r"真的吗", r"确定吗", r"我不觉得",
    r"정말",
), re.IGNORECASE)
CORRECTION_RE = re.compile(
    r"^\W*(no(?! (worries|problem|rush|need|idea|clue)\b)|nope|nah|wrong|not quite|stop|"
    r"wait|hold on|стоп|подожди|погоди|halt|warte|attends|espera|aspetta|czekaj|"
    r"not like that|that's (wrong|not it)|actually,? no|нет|не так|неправильно|nein|falsch|"
    r"nicht so|non|pas comme ça|faux|não|errado|nie|źle|sbagliato)(?!\w)|"
    r"^\W*(不是|不对|不行|等等|いいえ|違う|ちがう|待って|아니|아뇨|잠깐)",
    re.IGNORECASE,
)

# The assistant agreeing that what the user reports is a problem.
# The assistant owning a mistake it made: what follows is a bug and its cause.
SELF_ERROR_RE = re.compile(_words(
    r"\bmy (mistake|bad|fault|error)\b", r"\bi forgot\b", r"\bi had forgotten\b",
    r"\bmein fehler\b", r"\bich habe .{0,40}vergessen\b", r"\b(ma faute|mon erreur)\b",
    r"\bj'ai oublié\b", r"\b(mi error|errata mía|error mío)\b", r"\bolvidé\b",
    r"\b(erro meu|meu erro)\b", r"\besqueci\b", r"\b(errore mio|mio errore|colpa mia)\b",
    r"\bho dimenticato\b", r"\bmój błąd\b", r"\bzapomniałe?m\b", r"моя ошибка",
    r"\bя забыл", r"我的错", r"我忘了", r"私のミス", r"忘れていました", r"제 실수",
), re.IGNORECASE)
ACKNOWLEDGE_RE = re.compile(
    r"^\W*(you're right|you are right|right|good catch|good point|indeed|true|ah,? (right|yes)|"
    r"верно|точно|вы правы|ты прав|stimmt|richtig|du hast recht|guter punkt|"
    r"vous avez raison|tu as raison|effectivement|en effet|exact|"
    r"tienes razón|tiene razón|cierto|es verdad|você tem razão|verdade|é verdade|"
    r"hai ragione|giusto|vero|racja|masz rację|faktycznie|"
    r"确实|你说得对|没错|確かに|おっしゃる通り|その通り|맞아요|맞습니다)(?!\w)",
    re.IGNORECASE,
)

# The assistant giving an approach up (with structural evidence around it).
ABANDON_RE = re.compile(_words(
    r"\b(that|this) (approach|didn't|did not|won't|doesn't)\b.*\b(work|help)\b",
    r"\b(try|take) a different (approach|route|tack)\b", r"\breverting\b",
    r"\b(is|was|'s) (the )?wrong tool\b", r"\b(is|was|isn't|is not) (not )?the right tool\b",
    r"n'est pas le bon outil", r"nicht das richtige werkzeug",
    r"no es la herramienta (adecuada|correcta)",
    r"não é a ferramenta certa", r"не тот инструмент", r"不是(合适|正确)的工具",
    r"適切な道具ではない",
    # "I'll revert it", not "the next deploy would revert their change"
    r"\b(i'll|i will|let me|let's|we'll|i'm|i've|i have) revert\b",
    r"^revert\b|\brevert (it|that|this|my|the (change|edit|commit|patch))\b",
    r"\bback out\b", r"\bgive up on\b", r"\bdead end\b", r"\bwon't work\b",
    r"не сработал", r"другой подход", r"откат", r"funktioniert nicht", r"anderen ansatz",
    r"ne marche pas", r"autre approche", r"no funcionó", r"otro enfoque", r"não funcionou",
    r"outra abordagem", r"换个方法", r"行不通", r"回滚", r"別のアプローチ", r"元に戻",
    r"\bgiving up on\b", r"\bscrap(ping)? (it|that|this|the)\b", r"\bdrop(ping)? (this|that|the) "
    r"(approach|idea|route)\b", r"\bthat route is\b",
    r"отказываюсь от", r"откажемся от", r"этот (путь|вариант|подход) не", r"отменяю",
    r"verwerfe", r"rückgängig", r"dieser (weg|ansatz) (geht|funktioniert) nicht",
    r"\babandonn", r"j'annule", r"retour en arrière", r"je reviens (en arrière|sur)",
    r"cette (piste|approche|voie) (ne|est)", r"descart", r"\babandon(o|amos|ar)\b", r"deshago",
    r"desfaço", r"desfiz", r"esse caminho não", r"ese camino no",
    r"放弃", r"撤回", r"撤销", r"这条路", r"不可行", r"やめ(ます|て|る)", r"諦め", r"取り消",
    r"断念", r"戻します", r"\bvolto atrás\b", r"\bvuelvo atrás\b", r"\bvoy a revertir\b",
    r"\brevierto\b", r"\breverto\b", r"\bnehme (ich )?(das|es|ihn|sie) (wieder )?zurück\b",
    r"\bquito eso\b", r"\btiro isso\b",
), re.IGNORECASE)

# Headings and phrases of what is left open in a wrap-up.
OPEN_HEADING_RE = re.compile(_words(
    r"still open", r"\bopen\b", r"^offen$", r"^ouvert$", r"^abierto$", r"^em aberto$",
    r"unresolved", r"not (yet )?(addressed|fixed|covered|handled)",
    r"what'?s missing", r"missing", r"was noch fehlt", r"noch offen", r"fehlt noch",
    r"ещё не сделано", r"не сделано", r"reste", r"falta", r"ainda falta", r"还差", r"未解決",
    r"\bqueda(n)?\b", r"\bfic(a|am|ou|aram)\b", r"à voir", r"por ver", r"para ver",
    r"^next$", r"^(for|up to) you\b", r"\bon your (side|end)\b", r"\bfor you to\b",
    r"next steps?", r"follow[- ]?ups?", r"(left )?for later", r"left out", r"remaining",
    r"still to do", r"to ?do", r"not (yet )?done",
    r"left to do", r"what'?s left", r"pending", r"open (questions?|issues?|items?)",
    r"known (issues?|limitations?)", r"limitations?", r"caveats?", r"out of scope", r"future work",
    r"recommendations?", r"questions?",
    r"следующие шаги", r"осталось", r"нужно (ещё|еще)", r"открытые вопросы", r"дальше",
    r"nächste schritte", r"offene (punkte|fragen)", r"noch zu tun", r"prochaines étapes",
    r"reste à faire", r"questions ouvertes", r"próximos pasos", r"pendiente", r"preguntas abiertas",
    r"próximos passos", r"pendente", r"perguntas em aberto", r"下一步", r"待办", r"遗留", r"未完成",
    r"后续", r"次のステップ", r"残り", r"未対応", r"今後の課題", r"懸念", r"还没(做|有做|完成)",
    r"没做", r"未做", r"未实现", r"未実装", r"やっていない", r"まだ(です|やって)", r"не сделал",
    r"чего нет", r"ce qui manque", r"pas fait", r"nicht gemacht", r"no hecho", r"lo que falta",
    r"não fiz", r"o que falta",
), re.IGNORECASE)
# How something works, not work left: "when you need to force a rebuild, run …", "once it
# has returned, you have to spawn a fresh one".
GENERIC_YOU_RE = re.compile(
    r"\b(when|if|once|whenever|in case|unless|otherwise|wenn|falls|quand|si|cuando|quando|"
    r"если|когда)\b[^.;:!?]*\byou('ll| will)? (need|have) to\b", re.IGNORECASE)
# Nothing is left: "no pending changes", "nothing remaining", "rien en attente".
NOTHING_OPEN_RE = re.compile(
    r"\b(no|nothing|none|zero)\s+(\w+\s+)?(pending|remaining|left|outstanding)\b|"
    r"\bnothing (else )?(left|pending|remaining|outstanding|to do)\b|\bnada pendiente\b|"
    r"\bnada (mais )?pendente\b|\brien (de plus )?(en attente|à faire|ne reste)\b|"
    r"\bnichts (mehr )?(offen|ausstehend)\b|ничего не (осталось|ожидает)|没有(待|剩余|未完成)",
    re.IGNORECASE)
STILL_OPEN_RE = re.compile(_words(
    r"\bstill (need|needs|has to|have to)\b", r"\bstill to be (done|\w+ed|\w+en)\b",
    r"\bnot yet\b",
    # work left outside what was changed: "that's app code, I didn't touch it"
    r"\bi (didn't|did not|haven't) (touch|change)\w*\b", r"nicht angefasst", r"не трогал",
    r"\bleft (it|that|this|them) (alone|untouched|as (it|they) (is|are))\b",
    r"\b(antes|primero) hay que\b", r"\bhabría que\b", r"\bil faudrait\b",
    r"\b(müsste|sollte)(n)? (man )?(\w+ )?noch\b", r"\bстоило бы\b", r"\btambém deveria\b",
    r"\bil faudra(it)? d.abord\b",
    r"\bpas touché\b", r"no (he )?toqu", r"não mexi", r"non ho toccato", r"nie ruszał",
    r"触っていません", r"没(有)?(动|改)", r"건드리지 않았",
    r"\b(is|are|was|were|isn't|aren't)( not)? (\w+ )?(updated|handled|covered|done|migrated|"
    r"tested|fixed|wired|implemented|documented) yet\b", r"\bhaven't (yet )?\w+",
    r"\bleft (to do|for later)\b", r"\bfollow[- ]up\b", r"\blater\b", r"\bremains? to\b",
    r"\bwe should (also|still|eventually)\b", r"\bworth (adding|doing|looking)\b",
    # work handed to the user: "you need to add X", "one thing I can't do"
    r"\byou('ll| will)? (need|have) to\b", r"\b(one thing|something) i can(no|')t\b",
    r"вам (нужно|надо|придётся|придется)", r"\b(du musst|ihr müsst|sie müssen) noch\b",
    r"\bil (vous|te) faudra\b", r"\b(vous devrez|tu devras)\b",
    r"\b(tendrás|tendrán|tienes|tienen|necesitas|necesitarás) que\b",
    r"\b(você|vocês) (precisa|precisam|vai precisar|vão precisar|terá|terão|tem|têm) (que|de)\b",
    r"你(还)?需要", r"需要你", r"していただく必要",
    r"(?-i:\bTODOs?\b)(?=[:(]| (left|remain|in|for)\b)", r"\btodo:",
    r"\bnever (removed|cleaned|deleted|expired)\b", r"\bnext step\b",
    r"\bfixme\b", r"\bnext time\b", r"\bpending\b",
    # remaining work, not "your remaining quota"
    r"\bremaining\b(?! (quota|budget|balance|credits?|time|space|capacity|usage|tokens?|days?))",
    r"\bremain(s)? (open|flaky|skipped|broken|failing|unfixed)\b", r"\bawaiting\b",
    r"\bwaiting (for|on)\b", r"\bpending (confirmation|review|approval)\b", r"aguarda",
    r"\bnot (yet )?(started|begun)\b", r"не начат", r"nicht (begonnen|angefangen)",
    r"pas (encore )?commencé", r"sin empezar", r"no (he )?empezad", r"não (foi )?começad",
    r"未开始", r"还没开始", r"未着手",
    r"en attente", r"wartet auf", r"ожида", r"esperando", r"\baspetta\b", r"in attesa",
    r"ещё не", r"еще не", r"осталось", r"потом", r"позже", r"noch nicht", r"später", r"offen",
    r"pas encore", r"plus tard", r"reste à", r"todavía no", r"aún no", r"más tarde", r"pendiente",
    r"ainda não", r"mais tarde", r"pendente", r"还没", r"尚未", r"以后再", r"待(办|处理|定|修)",
    r"まだ", r"後で", r"nie entfernt",
    r"non ancora", r"ancora non", r"jeszcze nie", r"아직", r"никогда не (удаля|чист)",
    r"jamais (supprim|nettoy)",
    r"nunca se (borran|eliminan|limpian)", r"nunca são (removid|limp)", r"从不(删除|清理)",
    r"未対応",
    # left alone because it was not asked for: "je ne l'ai pas déplacé, ce n'était pas la
    # demande"; handed back: "yours for tomorrow"
    r"\bnot (part of )?(the|this|what you) (ask|request|task|scope|asked for)\b",
    r"ce n'était pas (la demande|demandé)", r"hors (du )?périmètre", r"nicht (Teil der Aufgabe|"
    r"gefragt|verlangt)", r"no (era|formaba parte de) lo que (pediste|pidió)", r"no era parte",
    r"fora do escopo", r"não fazia parte", r"не входило в задачу", r"вне (рамок|задачи)",
    r"不在(这次|本次)?(范围|需求)", r"範囲外", r"\bje ne l'ai pas \w+",
    r"\bich habe (es|das|ihn|sie) nicht \w+", r"\bno lo (he )?(movido|cambiado|tocado|arreglado)",
    r"\bnão (o|a) (movi|mudei|corrigi)", r"\bя (его|её|это) не (трогал|менял|переносил|исправлял)",
    r"\byours for\b", r"\b(that's|that one's|it's) yours\b", r"\bà toi pour\b",
    # advice and work named for later in a wrap-up: "you may want to add an index", "we'll
    # have to deal with it at some point", "before this goes to prod, …"
    r"\byou (may|might) (also )?want to\b", r"\bi('d| would)? (recommend|suggest)\b",
    r"\b(wasn't|weren't|isn't|aren't|was not|were not|hasn't been|haven't been) (\w+ )?(run|"
    r"tested|updated|verified|checked|migrated|deployed|covered|handled|documented|wired)\b",
    r"\bi (didn't|did not) (update|add|migrate|test|run|wire|implement|handle|cover|"
    r"document|deploy)\w*\b", r"\bnext up\b",
    r"\bbefore (this|it) (goes|ships|lands|is merged|is deployed|is released)\b",
    r"\bbefore (merging|shipping|deploying|the release|release)\b",
    r"\bstill (describes?|references?|mentions?|says|points? (to|at)|uses? the old)\b",
    r"\bstill (open|unresolved|unclear|unknown|an issue|a problem)\b",
    r"\b(eventually|at some point|down the (road|line)|ideally)\b",
    r"\b(will|'ll|would) need (a|an|the|to)\b", r"\b(we|you)('ll| will) have to\b",
    r"\bsomeone (should|needs to|will have to|has to)\b",
    r"(?<!si hace )(?<!se fizer )\bfalta(m|ndo|ria)?\b", r"还需要", r"还要", r"仍需", r"还得",
    r"\bresta(no)? da\b", r"\bmanca(no)?\b", r"\bda fare\b", r"\bzostał(o|y)\b",
    r"\btrzeba (jeszcze|będzie)\b", r"\bdo zrobienia\b", r"\bpóźniej\b",
    # nl / tr
    r"\b(moet|moeten) (\w+ ){0,4}nog\b", r"\bnog niet\b", r"\bnog te doen\b", r"\blater\b",
    r"\bkaldı\b", r"\bhenüz\b", r"\bdaha sonra\b", r"\byapılacak\b", r"\bsonra (bakarız|yaparım)\b",
), re.IGNORECASE)
# A wrap-up saying what it could not settle: an open question, even without a "?".
UNCERTAIN_RE = re.compile(_words(
    r"\b(couldn't|could not|can't|cannot|didn't|did not) (check|verify|confirm|test|tell|see)\b",
    r"non ho potuto (verificare|controllare|provare)", r"da verificare", r"nie (mogłem|mogłam) "
    r"(sprawdzić|zweryfikować)", r"do sprawdzenia", r"확인할 수 없", r"확인(해야|이 필요)",
    r"해 ?봐야",
    r"\bnot sure (if|whether|that)\b", r"\bunclear (if|whether|how|what)\b",
    r"\bi don't know (if|whether|who|which|how)\b", r"\bneeds? (to be )?(confirm|check|decid)ed\b",
    r"\bdepends on (whether|if|how|what|who|which)\b", r"\bhaven't (picked|decided|chosen)\b",
    r"зависит от того", r"hängt davon ab", r"dépend de", r"depende de", r"取决于", r"次第",
    r"\bworth (confirming|checking|asking)\b", r"\bnot (yet )?(decided|checked|verified)\b",
    r"не знаю,? (ли|нужно|стоит)", r"не уверен", r"нужно уточнить", r"неясно", r"непонятно",
    r"не проверил",
    r"ich weiß nicht,? ob", r"unklar", r"muss (noch )?geklärt", r"nicht geprüft",
    r"je ne sais pas si", r"à voir avec", r"à confirmer", r"pas vérifié", r"no sé si",
    r"no está claro", r"hay que confirmar", r"não sei se", r"não se sabe", r"a confirmar",
    r"不确定", r"需要确认", r"不清楚", r"判断できません", r"確認が必要", r"未定", r"わかりません",
    r"\b(couldn't|could not|can't|cannot|wasn't able to|was unable to) reproduce\b",
    r"\bcan('|no)t (tell|see|check|know) (that |this |it )?from here\b",
    r"\bkann ich (von hier( aus)? )?nicht (sehen|prüfen|sagen|beurteilen)\b",
    r"\bmüsste (jemand|wer)\b", r"\bje ne peux pas (le )?(voir|vérifier|savoir|dire)\b",
    r"\bno puedo (verlo|saberlo|comprobarlo|verificarlo|ver|saber|comprobar)\b",
    r"\bnão (consigo|posso) (ver|verificar|saber|confirmar)\b",
    r"не могу (проверить|сказать|увидеть|знать)", r"无法(确认|判断|看到)",
    r"ここからは(分かり|確認でき)",
    r"\bi'm not (certain|sure|confident)\b", r"\bnot certain\b",
    r"\bno (tengo|está|queda) claro\b", r"\bno estoy segur[oa]\b", r"\bnão tenho certeza\b",
    r"\bnão (está|ficou) claro\b", r"\bje ne suis pas sûr", r"\bpas clair\b",
    r"\bnicht sicher,? ob\b", r"\bnon sono sicur[oa]\b", r"\bnon è chiaro\b",
    r"\bnon so se\b", r"\bnie jestem (pewien|pewna|pewny)\b", r"\bnie wiem,? czy\b",
    r"\bniet zeker\b", r"\bweet (ik )?niet (of|zeker)\b", r"\bonduidelijk\b",
    r"\bemin değilim\b", r"\bbelli değil\b", r"\bnet değil\b", r"不太确定", r"不知道是否",
    r"확실하지 않", r"모르겠",
), re.IGNORECASE)

# A question that offers help is not an open question about the project.
# A choice made that waits on the person: "if you'd rather have floor division, say so".
CHOICE_ASK_RE = re.compile(_words(
    r"\bif you('d| would)? (rather|prefer)\b", r"\bwenn (du|ihr|sie) lieber\b",
    r"\bsi (tu préfères|vous préférez)\b", r"\bsi (prefieres|preferís|prefiere)\b",
    r"\bse (preferir|você preferir)\b", r"\bесли (вам|тебе) (больше нравится|удобнее)\b",
    r"\bse preferisci\b", r"如果你更(喜欢|倾向|希望)", r"(の方|のほう|方|ほう)がよければ",
), re.IGNORECASE)
# Words for the person the assistant talks to: a question with them is asked of the user,
# who answers it in their next message ("Which approach do you prefer?").
TO_USER_RE = re.compile(
    r"\b(you|your|yourself|vous|votre|vos|tu|ton|ta|tes|du|dein\w*|dir|dich|Sie|Ihnen|Ihr\w*|"
    r"usted|ustedes|tú|te|você|vocês|voi|tuo|tua)\b|\b(ты|вы|вас|вам|тебе|тебя|ваш\w*|тво\w*)\b|"
    r"你|您|あなた|당신", re.IGNORECASE)
OFFER_RE = re.compile(
    r"^(continue|proceed|go ahead)\b[^.!?]*\?$|"
    r"\b(would you like|(do you )?want me to|shall i|should i|let me know|can i help|"
    r"anything else|i can also|if you('d)? like|if you (ever )?want|happy to|"
    r"if you('d| would)? (rather|prefer)|say the word)\b|хотите|"
    r"нужно ли мне|möchtest du|"
    r"soll ich|"
    r"voulez-vous|souhaitez-vous|veux-tu|quieres que|desea que|quer que|deseja que|需要我|要不要我|"
    r"しましょうか|しますか",
    re.IGNORECASE,
)

SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")


def sentences(text: str) -> list[str]:
    """Sentences and lines of a text (code blocks removed), stripped of list markers."""
    text = re.sub(r"```.*?(```|\Z)", "\n", text, flags=re.DOTALL)
    out = []
    for piece in SENTENCE_SPLIT_RE.split(text):
        # a list marker is followed by a space: "6.5, c'est la LTS" keeps its version
        piece = re.sub(r"^\s*(?:[-*•>]|\d+[.)](?=\s|$)|#+)\s*", "", piece or "").strip()
        piece = piece.strip("*_ ").strip()
        if piece:
            out.append(piece)
    return out
