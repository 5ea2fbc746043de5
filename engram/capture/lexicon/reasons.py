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
    # one design put in another's place: "Replaced separate Start/Pause buttons with one
    # toggle button"
    r"\breplac(ed|ing|es)\b[^.;:]{3,60}\b(with|by)\b",
    r"\bgo(ing)? with\b", r"\bwent with\b", r"\bopt(ed)? for\b", r"\bchose\b", r"\bpicked\b",
    r"\bbetter (than|fit|choice)\b", r"\bprefer\b", r"\bprefiero\b", r"\bprefiro\b",
    r"\bje préfère\b", r"\bbevorzuge\b", r"предпочита\w+|предпочту", r"更倾向",
    # ways laid side by side: "two ways to fix this: data-testid, or the test's locale"
    r"\b(two|2) (ways|options|approaches|choices)\b",
    r"\b(deux|2) (façons|options|approches|solutions|possibilités)\b",
    r"\b(zwei|2) (möglichkeiten|wege|optionen|ansätze|varianten)\b",
    r"\b(dos|2) (formas|opciones|maneras|alternativas)\b",
    r"\b(duas|2) (formas|opções|maneiras|alternativas)\b",
    r"\b(два|2) (варианта|способа|пути|подхода)\b",
    r"(两|2)种(方法|办法|方案|做法|思路)", r"(二つ|2つ)の(方法|やり方|案|選択肢)",
    # the road weighed and not taken: "I considered WebSocket, but …"
    r"\b(considered|thought about|weighed)\b[^.;]{2,60}\bbut\b",
    r"\b(would work|is tempting|was tempting)\b[^.;]{0,40}\bbut\b",
    r"рассматрива\w*[^.;]{2,60}, но\b", r"думал\w* (о|об|про)\b[^.;]{2,60}, но\b",
    r"\babgewogen\b", r"\berwogen\b", r"\büberlegt\b[^.;]{2,60}, aber\b",
    r"\benvisagé\b[^.;]{2,60}, mais\b", r"\bpensé à\b[^.;]{2,60}, mais\b",
    r"\bconsider[ée]\b[^.;]{2,60}, pero\b", r"\bpens[ée] en\b[^.;]{2,60}, pero\b",
    r"\b(pensei em|considerei)\b[^.;]{2,60}, mas\b", r"考虑过[^。；]{1,40}但",
    r"(も|を)(検討|考え)しましたが", r"も考えましたが",
    # a comparison that names the other way: "SQLite is simpler than Postgres here"
    r"\b(simpler|safer|cleaner|cheaper|easier|faster|lighter|more robust) than\b",
    r"(проще|лучше|надёжнее|безопаснее|дешевле|быстрее)[^;]{0,60}, чем\b",
    r"\b(einfacher|besser|sicherer|billiger|schneller|robuster)\b[^;]{0,60}\bals\b",
    r"\bplus (simple|sûr|propre|robuste|rapide|léger)\b[^;]{0,60}\bque?\b",
    r"\bm[áa]s (sencillo|simple|seguro|limpio|barato|rápido)\b[^;]{0,60}\bque\b",
    r"\bmejor\b[^;]{0,60}\bque\b", r"\b(mais (simples|seguro|limpo|barato|rápido)|melhor)\b"
    r"[^;]{0,60}\bdo que\b", r"比[^。；]{1,30}(简单|好|安全|快|省)",
    # "X, not Y": the way not taken after the one chosen
    r", pas (en |de |d'|par |avec |un |une |le |la |les )?\S+",
    r"\by no (con|por|en|un|una|el|la|los|las|solo|sólo)\b",
    r"\be não (com|por|em|um|uma|o|a|os|as|só)\b", r", (não|no) (a|o|el|la|um|uma|un|una) \w+",
    r", (nicht|kein) (der|die|das|ein|eine) \w+", r"[，,]\s?不(用|直接|再)", r"のはやめ",
    # a named thing not used: "… in `ref.onDispose` abgebrochen, kein `keepAlive`"
    r", (not|no|nicht|kein|keine|keinen|pas de|sin|sem|не|без) `[^`]+`",
    # "(kein merge, weil …)": the road not taken, in parentheses
    r"\((kein|keine|pas de|pas|sin|sem|не|没有|非)\s?[^)]{2,60}\)",
    r"вместо", r"а не\b", r"\bstatt\b", r"anstatt", r"\bnicht \S+, sondern\b",
    r"\bund nicht\b", r"\bet non\b",
    r"au lieu d", r"plutôt qu", r"en lugar d", r"en vez d", r"em vez d", r"ao invés d",
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
# A purpose that guards against a harm names the way not taken: "…, otherwise a slow
# request overlaps the next tick", "to avoid double charges". It weighs on top of PURPOSE_RE.
GUARD_RE = re.compile(_words(
    r"\botherwise\b", r"\bor else\b", r"\bto (avoid|prevent)\b", r"\bso (that )?\S+ (never|"
    r"can't|cannot|won't|doesn't|don't)\b", r"иначе", r"чтобы не\b", r"во избежание",
    r"\bsonst\b", r"\bandernfalls\b", r"\bzu (vermeiden|verhindern)\b", r"\bdamit\b[^.;]{1,60}"
    r"\b(nicht|kein\w*|nie)\b", r"\bsinon\b", r"\b(pour|afin d)'?\s?éviter\b", r"\bpour ne pas\b",
    r"\bde lo contrario\b", r"\bpara (evitar|que no|no)\b", r"\bsenão\b", r"\bcaso contrário\b",
    r"\bpara (não|que não)\b", r"否则", r"不然", r"以免", r"避免", r"防止", r"そうしないと",
    r"さもないと", r"を防ぐ", r"を避け", r"ないように", r"ないため",
), re.IGNORECASE)
# The code as it is, or what a tool says of it: a sentence that describes ("`parse_date`
# returns None instead of raising", "the project already uses yarn rather than npm", "the
# compiler says a bound is missing") states no choice of the agent's, whatever its words.
AS_IT_IS_RE = re.compile(_words(
    r"\b(existing|currently|right now|as it (is|was))\b", r"\b(returns|uses|is using|is used)\b",
    # what a tool says: "the compiler says a bound is missing", "Clippy signale …"
    r"\b(compiler|linter|clippy|eslint|mypy|tsc|pyright|flake8|pylint|rubocop|type ?checker|"
    r"rustc|compilateur|compilador|kompilator|компилятор|линтер|the error)\w*\b[^.;]{0,30}\b("
    r"says?|complains?|wants?|(is )?asking|asks|reports?|flags?|suggests?|warns?|meldet|sagt|will|"
    r"moniert|indique|signale|dit|dice|indica|señala|diz|aponta|пишет|ругается|говорит|требует)\b",
    r"(编译器|コンパイラ|リンター|flake8|pylint|eslint|clippy|mypy)[^。]{0,30}(提示|报|说|と言って|"
    r"と言われ|が言って|指摘)",
    # an effect explained: "…, which is why the disk fills up"
    r"\bwhich is why\b", r"\bé por isso que\b", r"\bc'est pour ça que\b", r"\bd'où\b",
    r"\bотсюда\b", r"\bhoje\b", r"\baujourd'hui\b", r"\bсейчас\b", r"\bвозвращает\b",
    r"\bиспользуется\b",
    r"\b(bestehend\w*|aktuell|derzeit|momentan)\b", r"\bgibt\b[^.;]{1,40}\bzurück\b",
    r"\b(nutzt|verwendet|benutzt)\b", r"\b(existant\w*|actuellement)\b", r"\b(renvoie|retourne)\b",
    r"\b(actualmente|existente|atualmente)\b", r"\b(devuelve|usa|retorna|devolve)\b", r"目前",
    r"现在的", r"返回", r"用的是", r"既存", r"現状", r"今は", r"返す(ので|から|ため)",
    r"返しています", r"使っています",
), re.IGNORECASE)
# "Already" before the alternative a sentence names: "the project already uses axios rather
# than fetch". Said of a reason ("doctrine-messenger is already installed, so …") it chooses.
ALREADY_RE = re.compile(_words(
    r"\balready\b", r"\bуже\b", r"\b(schon|bereits)\b", r"\bdéjà\b", r"\bya\b(?! que)",
    r"\bjá\b(?! que)", r"已经", r"すでに|もう",
), re.IGNORECASE)
# The way it has been all along, wherever it is said: "(既存の構成です)", "that's existing
# behaviour", "ya estaba así".
SETTLED_RE = re.compile(_words(
    r"\bexisting behaviou?r\b", r"\bthat's how it (is|was)\b", r"текущ\w+ поведени",
    r"\bтак было\b", r"\bschon so\b", r"\bdéjà comme ça\b", r"\bya estaba\b", r"\bjá estava\b",
    r"本来就", r"既存の",
), re.IGNORECASE)
# A reason that points back at the sentence before it: "… CONCURRENTLY. Otherwise every
# write is locked", "… 設計にしました。二重課金を起こさないためです。"
BACK_REFERENCE_RE = re.compile(
    r"^\W*(otherwise|that way|this way|because|since|иначе|потому что|так|sonst|andernfalls|"
    r"weil|so\b|sinon|car|parce que|ainsi|de lo contrario|porque|así|senão|caso contrário|assim|"
    r"否则|不然|因为|这样|そうしないと|さもないと|なぜなら)\b|(ためです|からです|ためだ|ので)[。.]?\s*$",
    re.IGNORECASE)
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

# What makes a reasoned sentence before an edit a step of the work rather than a choice:
# an opening that narrates ("Теперь…", "Ensuite…", "まず…"), looking into something, an
# experiment, a mechanical repair.
STEP_RE = re.compile(_words(
    r"^\W*(теперь|сначала|дальше|далее|посмотрю|посмотрим|jetzt|zuerst|als nächstes|"
    r"schauen wir|maintenant|d'abord|ensuite|voyons|ahora|primero|luego|vamos a ver|agora|"
    r"primeiro|depois|vou ver|vamos ver|现在|首先|接下来|先看|まず|次に|では)",
    r"\b(to see|to check|find out|figure out|посмотр\w+|провер\w+|узнать|pour voir|vérifier|"
    r"comprendre pourquoi|para ver|verificar|entender por qu|um zu sehen|prüfen|herausfinden|"
    r"nachsehen)\b", r"看看", r"检查一下", r"確認(し|する)", r"調べ", r"見てみ",
    r"\b(typo|lint\w*|imports?|опечат\w+|импорт\w*|линтер\w*|tippfehler|faute de frappe|"
    r"errata|erro de digitação|clippy|eslint|ruff|flake8|unbenutzt\w*|inutilisé\w*|"
    r"неиспользуем\w*)\b", r"拼写", r"タイプミス", r"誤字", r"未使用",
    # the request restated: "you asked to rename …", "リネームとのことなので"
    r"\b(you asked|as requested|вы просили|как (вы )?просили|wie gewünscht|du wolltest|"
    r"comme demandé|tu m'as demandé|vous avez demandé|como pediste|me pediste|como (você )?pediu|"
    r"você pediu)\b", r"你要求", r"按你的要求", r"とのこと", r"ご依頼",
    # a consequence of a change just made: "since the function is now async, I'll await it"
    r"\b(is|are) now\b", r"\b(ist|sind) jetzt\b", r"\b(est|sont) maintenant\b",
    r"\bahora (es|son)\b", r"\bagora (é|são)\b", r"\bтеперь\b", r"现在是",
    r"になったので",
    # someone else's decision restated, a stopgap, an apology
    r"\b(user|client|team|you|lead|they|he|she) (decided|chose|wants?|asked)\b",
    r"\b(for now|temporar\w+|for the moment|пока что|временно|vorerst|vorläufig|erstmal|"
    r"pour l'instant|pour le moment|provisoire\w*|por ahora|de momento|temporal\w*|por enquanto|"
    r"provisóri\w+|sorry|извин\w+|entschuldig\w+|désolé|perdón|desculp\w+)\b", r"暂时", r"先这样",
    r"とりあえず", r"一旦", r"抱歉", r"すみません", r"申し訳",
), re.IGNORECASE)

# The agent saying what it does or will do, in the forms a language shows it: "I'll",
# "ich", "je", "voy a", "vou", "я", "我", "…にします".
AGENCY_RE = re.compile(_words(
    r"\b(i'll|i will|i'm going to|we'll|we will|i'm (using|keeping|making|putting|storing|"
    r"moving|going)|i keep|i use|i store|let's (make|keep|use|put|store))\b",
    r"\b(ich|wir)\b", r"\b(je|j'|nous)\b", r"\b(voy a|vamos a|prefiero|elijo|dejo|pongo|"
    r"guardo|uso)\b", r"\b(vou|vamos|prefiro|escolho|deixo|crio|leio|troco|uso|guardo)\b",
    r"(?<!\w)(я|мы|буду|будем)(?!\w)", r"我", r"(こと|よう|設計|方式)にし", r"にします",
), re.IGNORECASE)

