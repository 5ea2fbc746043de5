# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: a read-only question about an old Perl log-rotation script, explained with perl -c and B::Deparse (English)."""

from make_sessions import Session

ROTATE = r'''#!/usr/bin/perl -w
# rotate.pl -- keep 14 days of gateway logs, gzip the rest. (c) 2011 rk
use strict;
use File::Find;

my $dir  = shift || '/var/log/gateway';
my $keep = 14 * 86400;

find(sub {
    return unless /^gw-(\d{4})(\d\d)(\d\d)\.log$/;
    my $age = time - (stat $_)[9];
    if ($age > $keep) { unlink $_ and next }
    system('gzip', '-9', $_) if $age > 86400 && !-e "$_.gz";
}, $dir);

$_ = `df -P $dir`; /(\d+)%/ && $1 > 90 && print STDERR "gateway logs: disk at $1%\n";
'''


def build() -> Session:
    s = Session("perl-logrotate-explain-en", cwd="/srv/ops/gateway-tools", branch="master",
                start="2026-03-09T08:52:18.004Z", version="2.1.56")
    s.user(
        "quick one, no changes: what exactly does ops/cron/rotate.pl do? Mihai asked in standup why the gateway logs "
        "sometimes have a .log and a .log.gz for the same day and I had no idea. nobody has touched that file since 2011 lol",
        wait=5,
    )
    s.read("ops/cron/rotate.pl", ROTATE)
    s.bash("perl -c ops/cron/rotate.pl", "ops/cron/rotate.pl syntax OK", desc="Syntax check (no run)")
    s.bash("perl -MO=Deparse,-p ops/cron/rotate.pl 2>/dev/null | sed -n '8,16p'", r'''    (/^gw-(\d{4})(\d\d)(\d\d)\.log$/ or return);
    (my $age = (time - (stat($_))[9]));
    if (($age > $keep)) {
        (unlink($_) and next);
    }
    ((($age > 86400) and (not -e("$_.gz"))) and system('gzip', '-9', $_));
}
, $dir);''', desc="Deparse to see precedence")
    s.bash("grep -rn rotate.pl /etc/cron.d/ 2>/dev/null", "/etc/cron.d/gateway:3:15 3 * * * gwlogs /srv/ops/gateway-tools/ops/cron/rotate.pl", desc="When cron runs it")
    s.say(
        "It runs nightly at 03:15 as `gwlogs` and walks `/var/log/gateway`:\n\n"
        "1. Only files named `gw-YYYYMMDD.log` are touched (the regex; `.log.gz` files don't match, "
        "so old archives are never deleted by this script at all).\n"
        "2. Older than 14 days by mtime → `unlink`. `next` inside a `find` callback just leaves the sub.\n"
        "3. Older than one day and no `.gz` beside it → `gzip -9`.\n"
        "4. Finally `df -P` and a warning on STDERR above 90 %.\n\n"
        "**Why you see both `.log` and `.log.gz`:** `gzip -9 file` normally replaces the file, so "
        "both existing means gzip didn't finish — most likely it was killed or the disk filled "
        "mid-compress. After that, the `!-e \"$_.gz\"` check skips the day for good, so the "
        "half-written `.gz` and the original `.log` both stay until the `.log` hits 14 days and is "
        "deleted; the truncated `.gz` stays forever because rule 1 never matches it.\n\n"
        "A `gzip -t` on one of those pairs would tell you whether the `.gz` is truncated. I haven't "
        "run anything against `/var/log/gateway` itself."
    )
    s.turn_end()
    s.user("ha, the disk filling up would fit, that box was at 97% last month. ok that's all I needed, I'll just tell Mihai. thanks", wait=70)
    s.say("You're welcome.")
    s.turn_end()
    s.local_command("exit", "Goodbye!", wait=6)
    return s


GOLD = {
    "covers": [
        "empty: a read-only question about a 2011 Perl cron script (File::Find, gzip, df)",
        "'quick one, no changes' and 'that's all I needed': nothing changed, nothing decided, nothing to do",
        "`perl -c`, B::Deparse behind a `| sed`, a grep in /etc/cron.d; an explanation with a likely cause the user only passes on",
        "/exit",
    ],
    "language": "en",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
