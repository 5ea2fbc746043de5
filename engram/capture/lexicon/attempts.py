"""Words of an attempt: trying something, its failing or changing nothing, giving it up.

A failed attempt is worth remembering so it is not tried again: the assistant announcing a
try, saying it made no difference or abandoning it, and the person saying it did not work,
doubting an answer or turning down what was proposed.
"""

from __future__ import annotations

import re

from .words import _words

# The assistant announcing a try: "I'll try the cheap thing first", "Primero pruebo a …".
TRYING_RE = re.compile(_words(
    r"\b(i'll|i will|let me|let's|first,? i'll) (first )?try\b", r"\btry(ing)? the (cheap|quick|"
    r"simple|easy)\w*\b", r"\bfirst (attempt|try)\b",
    r"\b(primero )?pruebo (a|con)\b", r"\bvoy a probar\b", r"\bprimeiro (tento|testo)\b",
    r"\bvou tentar\b", r"\bj'essaie\b", r"\bje (vais )?(tente|essayer)\b", r"\bessayons\b",
    r"\bich (versuche|probiere)\b", r"\b(попробую|пробую|сначала попробую)\b",
    r"先试", r"试试", r"試して(み|み)", r"試します",
), re.IGNORECASE)

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

# The person doubting an answer: "I don't think that's it", "are you sure?", "本当に？".
DOUBT_RE = re.compile(_words(
    r"\bi don'?t think (that'?s|so|it'?s|this is)\b", r"\bare you sure\b", r"\breally\b[^.!]*\?",
    r"\bthat'?s not (it|right|the one)\b", r"\bbist du sicher\b", r"\bglaube ich nicht\b",
    r"\bt'es sûr\b", r"\bvous êtes sûr\b", r"\bje ne pense pas\b", r"\bno creo\b",
    r"\bestás seguro\b", r"\bacho que não\b", r"\btem certeza\b", r"не думаю", r"ты уверен",
    r"вы уверены", r"本当に", r"ほんとに", r"確かですか", r"真的吗", r"确定吗", r"我不觉得",
    r"정말",
), re.IGNORECASE)
# A person turning down what the assistant just proposed: "no, wrong — use jsonb".
CORRECTION_RE = re.compile(
    r"^\W*(no(?! (worries|problem|rush|need|idea|clue)\b)|nope|nah|wrong|not quite|stop|"
    r"wait|hold on|стоп|подожди|погоди|halt|warte|attends|espera|aspetta|czekaj|"
    r"not like that|that's (wrong|not it)|actually,? no|нет|не так|неправильно|nein|falsch|"
    r"nicht so|non|pas comme ça|faux|não|errado|nie|źle|sbagliato)(?!\w)|"
    r"^\W*(不是|不对|不行|等等|いいえ|違う|ちがう|待って|아니|아뇨|잠깐)",
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
