"""Words of a problem: the person reporting one, the assistant diagnosing or owning one.

A reported problem turns a request into a bug report; a diagnosis, a labelled cause or fix,
a bug found on the way or a mistake owned tells what the bug was and why.
"""

from __future__ import annotations

import re

from .words import _words

# The assistant telling of a bug it found on the way: "the subagent found a real bug:
# author-time is kept as a string", "нашёл реальный баг".
BUG_FOUND_RE = re.compile(_words(
    r"\b(found|spotted|noticed|uncovered|hit) (a|an|one|another) (real |actual |genuine |"
    r"separate |second )?(bug|defect)\b", r"\b(нашёл|нашел|нашла|заметил) (ещё )?(один |"
    r"реальный |настоящий )?баг", r"\b(encontró|encontré|encontrou|achei) (un|um) (bug|error|erro) "
    r"(real|de verdad|de verdade)\b", r"\ba trouvé un (vrai )?bug\b", r"\bhat einen (echten )?"
    r"(bug|fehler) gefunden\b", r"发现了?一个(真正的)?bug", r"本物のバグ",
), re.IGNORECASE)

# The assistant saying it has found the cause: what follows is the diagnosis.
FOUND_IT_RE = re.compile(
    r"^\W*(found it|got it|there it is|that's it|encontrad[oa]|achei|lo encontré|encontré|"
    r"trouvé|gefunden|нашёл|нашел|вот оно|找到了|找到原因|見つけ(た|ました))\W*$",
    re.IGNORECASE)

# A reported problem: what turns a request into a bug report.
PROBLEM_RE = re.compile(_words(
    # ("bug fixes", "the bug tracker": bugs as a subject, none reported)
    r"\b(fail(s|ed|ing)?|bug(?![- ](fix|report|track|bount|triag|hunt))|broken|"
    r"crash(es|ed|ing)?|wrong|duplicates?|twice|regression|flaky|"
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
    # what it does not do when it should, told as the expectation: "it should pop up a box
    # when that is happening", "it's stuck waiting for accessibility"
    r"\b(it|this|that|the \w+) should(n't| not)? (\w+ ){1,3}\w*\b[^.;]{0,60}\b(when|if|instead)\b",
    r"\b(stuck|silently)\b",
    # a problem that keeps coming back, or that people complain of: "third time this
    # month", "тренер ругается", "los clientes se quejan"
    r"\b(second|third|fourth|2nd|3rd|4th) time (this|in a|today|now)\b",
    r"\b(второй|третий|четв[её]ртый) раз\b", r"\bzum (zweiten|dritten|vierten) mal\b",
    r"\b(deuxième|troisième|quatrième) fois\b", r"\b(segunda|tercera|terceira|cuarta|quarta) vez\b",
    r"第[二三四]次", r"[二三四]回目",
    r"\bcomplain(s|ing|ed)?\b", r"руга(ется|ются)|жалу(ется|ются)", r"\bbeschwer(t|en)\b",
    r"\bse plai(nt|gnent)\b", r"\bse quejan?\b", r"\breclama(m|ndo)\b", r"投诉|抱怨|苦情",
    r"ошибк", r"падает", r"сломал", r"не работает", r"баг", r"дубл", r"подвиса", r"зависа",
    r"тормоз", r"съезжа", r"не (приходит|приходят|доходит|доходят|сохраняет|грузит)",
    r"fehler", r"kaputt",
    r"schlägt fehl", r"fehlschl\w*", r"stürzt ab", r"doppelt", r"erreur", r"\bplant(e|ent|é)\b",
    r"échoue",
    r"cassé",
    r"en double", r"deux fois", r"falla", r"\brot[oa]s?\b",
    r"\bduplicad", r"dos veces", r"erro\b",
    r"\bfalh(a|as|am|ou|aram|ando)\b", r"\bnão (chega|aparece|carrega|funciona|salva|abre)\b",
    r"\bnunca (aparece|chega|llega|carga)\b",
    r"\bno (llega|llegan|aparece|aparecen|carga|cargan|funciona|funcionan|pide|guarda|arranca)\b",
    r"quebr", r"duas vezes", r"报错", r"错误", r"失败", r"崩溃", r"重复", r"エラー", r"失敗",
    r"落ちる", r"落ちて", r"落ちた", r"挂了", r"重複", r"バグ", r"不再", r"卡住", r"卡死", r"死机",
    r"没反应", r"白屏", r"文字化け",
    r"errore", r"\bduplicat", r"błąd", r"dubluj", r"podwójn",
    r"에러", r"오류", r"깨져", r"중복",
    # a search or a match that misses what is there: "a busca não acha 'acucar'" (not
    # "I can't find the config": a question of where, asked by the person)
    r"\b(?<!\bi )(?<!\bwe )(can't|cannot|doesn't|does not|won't) (find|match)\b",
    r"\bnão (acha|encontra)\b", r"\bno (encuentra|encuentran)\b", r"\bne trouve (pas|rien)\b",
    r"\bfindet (\w+ ){0,3}nicht\b", r"не наход(ит|ят)", r"搜不到|查不到",
    # people who should see something and do not: "los empleados no ven los pedidos", "the
    # list comes out empty"
    r"\b(?<!\bi )(?<!\bwe )(can't|cannot|don't|doesn't) see (the|their|any|his|her)\b",
    r"\b(comes out|shows up|renders|loads) empty\b", r"\bno (ven|vemos)\b",
    r"\b(sale|aparece|queda) vac[ií][oa]\b", r"\bnão (veem|vê|vemos)\b",
    r"\b(fica|vem|aparece) vazi[oa]\b", r"\bne (voient|voit) (pas|rien)\b",
    r"\b(reste|s'affiche) vide\b", r"\bsehen (\w+ ){0,3}nicht\b", r"\bbleibt leer\b",
    r"не (видят|видит)\b", r"(看不到|显示为空)", r"(見えない|表示されない)",
), re.IGNORECASE)
# A labelled line of a wrap-up that names a cause or a fix.
# A labelled line of a wrap-up that states the fix: part of the bug, not a decision.
FIX_LABEL_RE = re.compile(
    r"^\W*(key )?(fix(es|ed)?|solution|correctif|correction|arreglo|solución|correção|"
    r"solução|soluzione|rozwiązanie|решение|исправление|lösung|behoben|修复|修正|対応|"
    r"(解决)?方案|解決策)\b[^:：]{0,30}[:：]",
    re.IGNORECASE,
)
CAUSE_LABEL_RE = re.compile(
    r"^\W*((the )?(root cause|cause|problem|issue)|the bug|"
    r"why( it (broke|failed|happened|crashed))?|what (was wrong|happened|broke)|"
    r"ursache|problem|warum|причина|проблема|почему|"
    r"cause racine|pourquoi|causa|por qu[ée]|原因|為什麼|为什么|問題|なぜ)"
    # what it is the cause of: "Cause of the overbooking:", "Причина перебора:"
    r"(\s+(of|for|des|der|du|de|del|della|da|do)(\s+(the|la|le|les|el|los|l'))?\s*[^\s:：]+|"
    r"\s+[а-яё]+)?\W*[:：]\s*(?P<text>.+)$",
    re.IGNORECASE,
)
# The assistant announcing what it found wrong: "Deux problèmes dans ra_ajax_book :", "the
# bug is", "问题出在" — a bug report, however the user worded what they saw.
DIAGNOSIS_RE = re.compile(_words(
    r"\b(two|three|several|a few|\d|both) (problems|bugs|issues)\b", r"\bобе проблемы\b",
    r"\bbeide (probleme|fehler)\b", r"\bles deux (problèmes|bugs)\b",
    r"\bambos (problemas|bugs|errores|erros)\b", r"两个问题",
    r"\bthe (bug|problem|issue|root cause) (is|was|here is)\b", r"\bfound the (bug|cause)\b",
    # "Found it: the handler …" (not "Found it. Let me make the change": what was looked for)
    r"\bfound it\s*[:—–]",
    r"\b(deux|trois|plusieurs) (problèmes|bugs|soucis)\b", r"\ble (problème|bug|souci) "
    r"(est|vient|c'est)\b", r"\b(zwei|drei|mehrere) (probleme|bugs|fehler)\b",
    r"\bdas problem (ist|liegt)\b", r"\bder (fehler|bug) (ist|liegt)\b",
    r"\b(dos|tres|varios) (problemas|bugs|errores)\b", r"\bel (problema|bug|error) (es|está|"
    r"viene)\b", r"\b(dois|três|vários) (problemas|bugs|erros)\b", r"\bo (problema|bug|erro) "
    r"(é|está|vem)\b", r"\b(две|три|несколько) (проблемы|ошибки|бага)\b", r"\bпроблема в\b",
    r"\b(дві|три|кілька) (проблеми|помилки|підозри)\b", r"\bпричина в\b",  # uk
    r"\b(two|three) (suspects|suspicions|culprits)\b",
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

# The assistant owning a mistake it made: what follows is a bug and its cause.
SELF_ERROR_RE = re.compile(_words(
    r"\bmy (mistake|bad|fault|error)\b", r"\bi forgot\b", r"\bi had forgotten\b",
    r"\bmein fehler\b", r"\bich habe .{0,40}vergessen\b", r"\b(ma faute|mon erreur)\b",
    r"\bj'ai oublié\b", r"\b(mi error|errata mía|error mío)\b", r"\bolvidé\b",
    r"\b(erro meu|meu erro)\b", r"\besqueci\b", r"\b(errore mio|mio errore|colpa mia)\b",
    r"\bho dimenticato\b", r"\bmój błąd\b", r"\bzapomniałe?m\b", r"моя ошибка",
    r"\bя забыл", r"我的错", r"我忘了", r"私のミス", r"忘れていました", r"제 실수",
    # owning a step skipped: "I should have checked …", "I assumed X — but of course …"
    r"\bi should have (checked|run|verified|looked|read|tested)\b",
    r"\bi assumed\b[^.]{0,120}\bbut\b", r"\bich hätte\b.{0,40}\bsollen\b", r"\bj'aurais dû\b",
    r"\bdebí haber\b", r"\beu deveria ter\b", r"мне следовало", r"我应该先", r"べきでした",
), re.IGNORECASE)
# The assistant agreeing that what the user reports is a problem.
ACKNOWLEDGE_RE = re.compile(
    r"^\W*(you're right|you are right|right|good catch|good point|indeed|true|ah,? (right|yes)|"
    r"верно|точно|вы правы|ты прав|stimmt|richtig|du hast recht|guter punkt|"
    r"vous avez raison|tu as raison|effectivement|en effet|exact|"
    r"tienes razón|tiene razón|cierto|es verdad|você tem razão|verdade|é verdade|"
    r"hai ragione|giusto|vero|racja|masz rację|faktycznie|"
    r"确实|你说得对|没错|確かに|おっしゃる通り|その通り|맞아요|맞습니다)(?!\w)",
    re.IGNORECASE,
)

# A cause put forward, not shown: "my hypothesis", "the issues stem from", "I suspect".
HYPOTHESIS_RE = re.compile(_words(
    r"\bhypothes[ie]s\b", r"\bi suspect\b", r"\b(stems?|stemming) from\b",
    r"\bmy (best )?guess\b", r"\b(most )?(likely|probable) cause\b", r"\bhypothese\b",
    r"\bich vermute\b", r"\bhypothèse\b", r"\bje soupçonne\b", r"\bhip[óo]tese\b",
    r"\bhip[óo]tesis\b", r"\bsospecho\b", r"\bsuspeito\b", r"гипотез", r"подозреваю",
    r"假设", r"推测", r"怀疑", r"仮説", r"と推測",
), re.IGNORECASE)
