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

# A change that did nothing, or broke something else, or a cause ruled out — said by the
# person of the last change or by the assistant of its own: "hat nicht geklappt", "não
# adiantou", "Am Heap liegt's nicht", "壊れた".
_DID_NOTHING = _words(
    # (in the present tense only of what was tried: "Blockchain doesn't solve hardware
    # compromise" tells a general truth, "the hostname doesn't resolve" a symptom)
    r"\b(didn't|did not) (resolve|change|solve)\b", r"\b(that|this|it) (still )?(doesn't|does "
    r"not) (resolve|change|solve) (it|anything|the (issue|problem|error|bug|crash))\b",
    r"\b(hat|hatte) nicht geklappt\b", r"\bändert nichts\b",
    r"\bweiterhin (ein |eine |der |die |das |mit )?(\d|fehl|kaputt|rot|absturz)",
    r"\btrotzdem (mit|wieder|noch|\w+ gekillt)\b", r"ne suffit pas", r"\bmarche pas\b",
    r"\btoujours (une|un) (erreur|crash|plantage|\d+)", r"\btoujours (le|la) (même|warning|"
    r"erreur)\b", r"\bfalla igual\b", r"\bnão (adiantou|resolveu|mudou)\b",
    r"\bcontinua (dando|subindo|falhando|quebrando|travando|com o mesmo)\b", r"не помог",
    r"(падает|висит) так же", r"так же (падает|висит)", r"还是\S{0,8}(装不上|OOM|被杀|一样|超时)",
    r"没用(?=[。，！,.!]|$)", r"やっぱり", r"意味がない", r"減っただけ",
    # a cause ruled out: "War nicht der Daemon", "Am Heap liegt's nicht", "不是这个原因"
    r"\bwar nicht (der|die|das)\b", r"\bliegt'?s nicht\b", r"\bnão é (isso|o|a) \w+\.",
    r"не в этом", r"дело не в", r"\bне оно\b", r"不是这个原因", r"じゃない(みたい|よう)",
    r"ではない(みたい|よう)", r"\b(it'?s|that'?s|was) not (it|the (cause|culprit|problem|issue))\b",
    r"\bce n'est pas (ça|le coupable|la cause)\b", r"\bno es (eso|el culpable|la causa)\b",
)
# A change that broke something else: "broke three other cases", "quebrou o login".
_BROKE = _words(
    r"\bbroke\b", r"\bkaputt\b", r"\bcass[ée]", r"\brompió\b", r"\bquebrou\b",
    r"сломал", r"坏了", r"壊れ", r"真っ白",
)
# A person saying the last attempt failed.
DID_NOT_WORK_RE = re.compile(_words(
    r"\b(didn't|did not|doesn't|does not|still (doesn't|does not|isn't|is not))\s+(work|help|"
    r"fix)\b", r"\bstill (fails|failing|broken|crash(es|ing)?|the same|red)\b",
    r"\bnot working\b", r"\bno (real |visible |measurable )?(luck|change|difference|improvement)\b",
    r"\bstill (no|not|nothing)\b", r"\bsigue (sin|igual)\b", r"\bcontinua (sem|igual)\b",
    r"\btoujours pas\b", r"\bimmer noch (nicht|kein)", r"(всё|все) (ещё|еще) не\b", r"还是没",
    r"\bsame (error|problem|issue)\b",
    # a change to take out: "das muss raus", "that has to go", "убери это"
    r"\b(das|dies|es|that|this|it) (muss|has to|must|needs to) (wieder )?(raus|go)\b",
    r"\bnimm (das|es|ihn|sie) (wieder )?raus\b", r"\btake (it|that|this) (back )?out\b",
    r"\benlève[- ](le|la|ça)\b", r"\bquita(lo|la)? (eso|esto)\b", r"\btira isso\b",
    r"\bубери (это|его|её)\b",
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
    # the change made things worse or broke something else: "the caching idea made it slower"
    r"\bmade (it|things|everything) (slower|worse)\b", r"\b(it'?s|is) (now )?slower\b",
    r"(стало|стал) (только )?(медленнее|хуже)", r"\blangsamer\b", r"\bplus lent",
    r"\bmás lent[oa]", r"\bmais lent[oa]", r"变慢", r"更慢", r"遅くな",
    r"\bsame (crash|thing|behaviou?r|bug)\b", r"(тот же|та же) (краш|ошибк|проблем)",
    r"\bgleiche[rn]? (absturz|crash|problem)\b", r"\b(même|le même) (crash|plantage|problème)\b",
    r"\bmismo (crash|error|problema|cierre)\b", r"\bmesmo (crash|erro|problema)\b",
    r"同样的(问题|崩溃|错误)", r"还是(崩|闪退|一样)", r"同じ(ところ|エラー|クラッシュ)",
    r"не спасает", r"не помогает", r"hilft (da )?nicht", r"ne règle pas", r"ne corrige pas",
    r"no lo arregla", r"no arregla", r"não resolve", r"não adianta", r"没解决", r"効いてない",
    r"効いていない", r"直らない",
    r"\b(revert|undo|roll back) (it|that|this|the change)\b", r"\bput it back\b", r"выпили",
    r"уберём|уберем", r"верни (как было|обратно)", r"\bmach das (wieder )?rückgängig\b",
    r"\benlève(-le|z-le)?\b", r"\bannule\b", r"\bquita(lo)?\b", r"\bdeshaz(lo)?\b",
    r"\b(pode )?(tirar|voltar|reverter)\b", r"元に戻して", r"外しましょう", r"撤掉", r"改回去",
    r"\bso (geht das|nicht)\b", r"так не пойд[её]т", r"\bça ne va pas\b", r"\bno nos sirve\b",
    r"\bnão dá\b", r"这样不行", r"使えない",
    _DID_NOTHING, _BROKE,
    # a change to take back: "revierte eso", "reverte isso", "回滚吧", "これ戻してください"
    r"\brevi[eé]rte\b", r"\breverte\b", r"\bdesfaz\b", r"回滚(吧|掉)", r"戻して", r"rückgängig",
), re.IGNORECASE)
# A wrap-up telling a road it took and left: "I first tried X, but …", "Хотел взять sharp,
# но …", "(最初是…所以放弃了)", "その案は捨てました", "habe ich verworfen".
DROPPED_RE = re.compile(_words(
    r"\b(i )?(first|initially|originally) (tried|wanted|went with|used|attempted)\b",
    r"\bi (tried|wanted|started with|was going to)\b[^.!?]{3,120}\b(but|however)\b",
    r"\b(was|were|is) (too slow|dropped|rejected|abandoned|ruled out)\b",
    r"\b(gave|give) up on\b", r"\bdropped (it|that|this|the idea)\b", r"\bruled out\b",
    r"сначала (пробовал|хотел|попробовал)", r"\bхотел (взять|сделать|использовать)\b",
    r"\bпопутно пробовал\b", r"\bотпал\w*\b", r"\bотказался\b", r"\bне подош(ёл|ел|ла|ло)\b",
    # uk: "ще спробував вимкнути vsync … тож повернув vsync = 1"
    r"\bспробува(в|ла)\b[^.!?]{3,160}\b(повернув|повернула|відкотив|відкотила|прибрав)\b",
    r"\bвідмовив(ся|лася)\b",
    r"\b(zuerst|erst|anfangs|ursprünglich) (hatte ich|habe ich|wollte ich|versucht|probiert)\b",
    r"\bangefangen hatte ich\b", r"\bverworfen\b", r"\bausprobiert\b",
    r"\bfällt\b[^.!?]{0,30}\baus\b",
    r"\bj'ai d'abord (essayé|tenté|voulu)\b", r"\bj'avais (commencé|essayé|voulu)\b",
    r"\babandonn[ée]\b", r"\bécart[ée]\b",
    r"\bprimero (intenté|probé|quise)\b", r"\bprobé primero\b", r"\bdescart[ée]\b",
    r"\bno arrancaba\b", r"\b(tentei|testei) primeiro\b", r"\bantes tentei\b",
    r"\bprimeira tentativa\b", r"\bia (aproveitar|usar)\b", r"\bdescartad[oa]\b",
    r"一开始(想|用|试)", r"最初是", r"本来(想|用|在)", r"先试(了|过)", r"放弃了", r"作罢",
    r"没成功", r"最初は", r"その案は捨て", r"見送り", r"断念", r"試したが", r"うまくいかなかった",
), re.IGNORECASE)
# A wrap-up's heading over the roads left: "### Tried", "**Sackgassen**", "踩过的坑".
DEAD_END_HEADING_RE = re.compile(_words(
    r"^\W*(tried|dead ends?|what didn'?t work|didn'?t work|rejected|ruled out|abandoned|"
    r"false starts?|not pursued)\b", r"тупики", r"не сработало", r"что пробовал", r"sackgassen",
    r"ausprobiert", r"verworfen", r"fausses pistes", r"impasses", r"essayé",
    r"callejones sin salida",
    r"descartado", r"probado", r"becos sem saída", r"descartad", r"tentativas", r"踩过的坑",
    r"没成功的尝试", r"走不通", r"行き止まり", r"うまくいかなかったこと", r"試したがダメ",
    # a road turned down: "Отклонено: ack_wait 600", "试过放弃：…"
    r"^\W*(отклонено|отвергнуто|abgelehnt|rejeté|rechazado|rejeitado|scartato)\b",
    r"^\W*(试过|放弃|否决)", r"^\W*(却下|不採用)",
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
    r"майже не змінив\w*", r"не допомогл\w*",  # uk
    r"non è cambiato nulla", r"nie pomogło", r"nic nie zmieniło", r"hielp niet",
    r"maakte geen verschil", r"işe yaramadı", r"fark etmedi", r"没(有)?(帮助|效果)",
    r"没(有)?用(处)?(?=[。，！,.!]|$)",
    r"没有(任何)?变化", r"効果(が|は)?(ない|なかった|なし)", r"変わらなかった", r"변화가 없",
    r"효과가 없", r"도움이 안", _DID_NOTHING,
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
# Taking out what was only ever meant to go: "revert the 'jess was here' test change",
# "remove the debug logging", "retire le log temporaire", "убираю временный вывод".
PROBE_UNDONE_RE = re.compile(
    r"\b(revert|remove|undo|drop|take out|clean up|strip)\w*\b[^.!?\n]{0,60}\b(test change|"
    r"temporary|temp|debug\w*|probe|placeholder|dummy)\b|"
    r"\b(temporär\w*|debug-?ausgabe|temporaire|temporal|temporária|temporário)\b|"
    r"временн\w*|отладочн\w*|临时|调试|一時的|デバッグ用|テスト用", re.IGNORECASE)
CORRECTION_RE = re.compile(
    r"^\W*(no(?! (worries|problem|rush|need|idea|clue)\b)|nope|nah|wrong|not quite|stop|"
    r"wait|hold on|стоп|подожди|погоди|halt|warte|attends|espera|aspetta|czekaj|"
    r"not like that|that's (wrong|not it)|actually,? no|нет|не так|неправильно|nein|falsch|"
    r"nicht so|non|pas comme ça|faux|não|errado|nie|źle|sbagliato)(?!\w)|"
    r"^\W*(不是|不对|不行|等等|いいえ|違う|ちがう|待って|아니|아뇨|잠깐)",
    re.IGNORECASE,
)

# (not "revert the 'jess was here' test change": a probe taken out as planned)
_NOT_A_PROBE = (r"(?![^.!?\n]{0,60}\b(test change|temporary|temp|debug\w*|probe|placeholder|"
                r"dummy)\b)")
# The assistant giving an approach up (with structural evidence around it).
ABANDON_RE = re.compile(_words(
    r"\b(that|this) (approach|didn't|did not|won't|doesn't)\b.*\b(work|help)\b",
    r"\b(try|take) a different (approach|route|tack)\b", r"\breverting\b" + _NOT_A_PROBE,
    r"\b(is|was|'s) (the )?wrong tool\b", r"\b(is|was|isn't|is not) (not )?the right tool\b",
    r"n'est pas le bon outil", r"nicht das richtige werkzeug",
    r"no es la herramienta (adecuada|correcta)",
    r"não é a ferramenta certa", r"не тот инструмент", r"不是(合适|正确)的工具",
    r"適切な道具ではない",
    # "I'll revert it", not "the next deploy would revert their change"
    r"\b(i'll|i will|let me|let's|we'll|i'm|i've|i have) revert\b" + _NOT_A_PROBE,
    r"(^revert\b|\brevert (it|that|this|my|the (change|edit|commit|patch))\b)" + _NOT_A_PROBE,
    r"\bback out\b", r"\bgive up on\b", r"\bdead end\b", r"\bwon't work\b",
    r"не сработал", r"другой подход", r"откат", r"funktioniert nicht", r"anderen ansatz",
    r"ne marche pas", r"autre approche", r"no funcionó", r"otro enfoque", r"não funcionou",
    r"outra abordagem", r"换个方法", r"行不通", r"回滚(吧|了|掉|这个|改动)", r"別のアプローチ",
    r"元に戻",
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
    # a guess ruled out: "So it isn't the cache", "Значит, дело не в кэше", "看来不是 X 的锅"
    r"\bso (it|that) (isn't|is not|wasn't|was not)\b", r"\bnot (the|it) (cause|culprit)\b",
    r"дело не в\b", r"\bliegt'?s (also )?nicht\b", r"\bliegt es (also )?nicht\b",
    r"\bdonc ce n'est pas\b", r"\bce n'est donc pas\b", r"\bentonces no es\b",
    r"\bno es (el|la) (culpable|causa)\b", r"\bentão não é\b", r"\bnão é (o|a) culpad",
    r"不是[^。，]{1,20}的(锅|问题|原因)", r"原因は[^。]{1,40}ではありません", r"ではなさそう",
    # the same failure with the other way: "Same error with `moduleResolution`", "Не оно."
    r"\bsame (error|panic|crash|failure|result) with\b", r"\b(même|la même) erreur avec\b",
    r"\bmismo (error|panic|fallo) (con|al)\b", r"\bmesmo erro com\b",
    r"\bgleiche[rn]? fehler mit\b",
    r"\bне оно\b", r"то же самое", r"同じエラー", r"相変わらず", r"还是(超时|报错|失败|挂)",
    r"\bdropping (it|that|this|the|\w+ (approach|idea))\b", r"\bputting (it|the \w+) back\b",
    r"возвращаю (как было|обратно)", r"\bje reviens à\b", r"\bvolto (pra|para) (a|o)\b",
    r"\bvuelvo a\b", r"改回(去|来)", r"别的办法", r"別の(手|方法)", r"方針はやめ",
    r"\bdescarto\b", r"\bverworfen\b", r"\bnicht weiter\b", r"\bубираю\b", r"\bdesfazendo\b",
    r"\blo dejo como (estaba|está)\b", r"退回", r"戻しました", r"开回来", r"不折腾",
    r"^\W*dropping\b(?![^.]*\bwould\b)",
), re.IGNORECASE)
# What is only imagined or held back: "if the bump doesn't help, we'll try …", "wait,
# don't revert yet", "ステージングで効かなかったら" — no attempt has failed.
NOT_YET_FAILED_RE = re.compile(_words(
    r"^\W*(if|unless|in case|si|wenn|falls|se|caso|если|如果|要是|万一)\b", r"(たら|なら)[、,]",
    # waiting with the revert: "wait, don't revert yet", "Подожди откатывать", "先别急着回滚"
    r"(\b(wait|hold on|don't|do not|not yet)|подожди|погоди|не спеши|\bwarte|\bnoch nicht|"
    r"\battends?|\bespera|\baguarda|先别|别急|待って)\W+(\w+\W+){0,2}(revert|roll|откат|"
    r"rückgängig|annul|revert|desfaz|回滚|戻)",
), re.IGNORECASE)

