"""What a person's prompt asks for: a review, a way to build it, a pick, a lesson, an answer.

These decide what kind of work a session is (a review, a trial of the agent, a question with
no change wanted) and which sentence of a request is the choice that the work carries out.
"""

from __future__ import annotations

import re

from .words import _words

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

# A person proposing a change, not telling what is wrong: "I think we should run it on all
# push?", "would you mind fixing the type issues?", "how about a config flag".
SUGGESTION_RE = re.compile(_words(
    r"\b(i think )?we should\b", r"\bwould you mind\b", r"\b(can|could) you\b",
    r"\bhow about\b", r"\bwhat about\b", r"\blet'?s\b", r"\bi'd like\b", r"\bi want\b",
    r"\bwir sollten\b", r"\bkannst du\b", r"\bon devrait\b", r"\btu peux\b",
    r"\bdeberíamos\b", r"\bpodrías\b", r"\bdeveríamos\b", r"\bvocê pode\b",
    r"\bдавай\b", r"\bможешь\b", r"\bнадо бы\b",
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
    # this one thing and nothing else: "nur den Tippfehler, sonst nix anfassen"
    r"\b(just|only|nur|juste|seulement|só|solo|solamente|только)\b[^.!?]{3,80}\b((nothing|"
    r"anything) else|sonst (nix|nichts)|rien d'autre|mais nada|nada más|больше ничего|"
    r"ничего больше)", r"只[^。！？]{2,30}(别的|其他)(的)?(都)?(不要|别)动",
    r"だけ[^。！？]{2,30}他は(触ら|いじら|変え)ないで",
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
    r"\b(niczego|nic) nie (zmieniaj|ruszaj|poprawiaj)\b",
    r"\bnie (zmieniaj|ruszaj) (niczego|nic|kodu)\b",
    r"\btylko (wyjaśnij|wytłumacz|powiedz|pytam|chcę zrozumieć)\b",
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
# Two ways weighed in a request: "not sure if I should use local storage or IndexedDB",
# "whether to use Redis or Postgres", "bin mir nicht sicher, ob wir Redis oder Postgres".
_WORD = r"[\w#+/-]+(?:\.\w+)*"  # "next.js" is one word; a full stop is not part of one
_OPTION = r"(?:the |a |an )?(?P<{}>" + _WORD + r"(?: " + _WORD + r"){{0,2}}?)"
WEIGHING_RE = re.compile(
    r"(?:\b(?:not sure|unsure|wondering|can'?t decide|don'?t know) (?:if|whether) (?:i|we) "
    r"(?:should|want to|need to|ought to) (?:use|go with|pick|choose|store (?:it|them|\w+) in) |"
    r"\b(?:should|do|shall) (?:i|we) (?:use|go with|pick|choose) |"
    r"\bwhether to (?:use|go with|pick) |\btorn between |"
    r"\bnicht sicher,? ob (?:ich|wir) |"
    r"\bne sais pas si (?:je|on) (?:dois|devrait|doit) (?:utiliser|prendre) |"
    r"\bno s[ée] si (?:usar|conviene usar|deber[ií]a usar) |"
    r"\bn[ãa]o sei se (?:uso|usar|devo usar) )"
    + _OPTION.format("a") + r" (?:or|and|oder|ou|o) " + _OPTION.format("b")
    + r"(?=\s*(?:[.,;:!?)]|$)|\s(?:but|for|to|in|as|here|aber|für|mais|pour|pero|para|mas|"
      r"verwenden|nehmen|nutzen)\b)",
    re.IGNORECASE)
# Leaning to one of them: "local storage might be good enough", "Redis sollte reichen".
LEAN_RE = re.compile(_words(
    r"\b(might|may|would|should|will|could) (be|work) (good enough|enough|fine|ok|okay|"
    r"sufficient|better|the way to go)\b", r"\bgood enough\b", r"\bprobably (fine|ok|okay|"
    r"enough|better|the way to go)\b", r"\b(is|are|seems?) (fine|enough|sufficient)\b",
    r"\blet'?s (go with|use|stick with)\b", r"\bi'?(ll|d) (go with|use|pick)\b",
    r"\bis the way to go\b", r"\b(sollte|müsste|dürfte) (reichen|genügen)\b", r"\breicht\b",
    r"\bdevrait suffire\b", r"\bsuffit\b", r"\bdeber[ií]a (bastar|alcanzar)\b",
    r"\b(basta|alcanza)\b", r"\bdeve bastar\b", r"\bé suficiente\b",
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

# The assistant asking what the person means before it can do anything: "I'm not sure which
# app launcher you're referring to. Could you help me understand: …", "Which file do you
# mean?" — the work waits on the answer, nothing is chosen yet.
CLARIFY_RE = re.compile(_words(
    r"\b(could|can|would) you (help me understand|clarify|tell me (which|what|where)|confirm "
    r"(which|what|where)|point me to|share (the|which))\b",
    r"\bi'?m not sure (which|what|where) [^.?!]{0,60}\b(you('re| are) referring to|you mean|"
    r"you'?d like|you want)\b",
    r"\bwhich \w+( \w+)? (do you mean|are you referring to)\b",
    r"\b(kannst|könntest) du (mir )?(sagen|erklären|klären),? (welche|was|wo)\b",
    r"\bpourrais-tu (préciser|me dire)\b",
    r"\b(puedes|podrías) (aclarar|decirme) (qué|cuál|dónde)\b",
    r"\b(pode|poderia) (esclarecer|me dizer) (qual|o que|onde)\b",
    r"уточни(те)?,? (какой|какую|что|где)", r"请(问|确认)你(说的|指的)是",
    r"どの\S{1,10}のことですか",
), re.IGNORECASE)
