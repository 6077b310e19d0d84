#!/bin/sh
# E68: the script is swapped between the exec check and the interpreter's
# re-open of argv[1]: a flipper renames an evil script over the approved
# one while the approved one is exec'd in a loop. The approved script is
# harmless; the evil one creates a marker. The catalogue: a policy keyed on
# script paths is advisory unless interpreters use AT_EXECVE_CHECK.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
sh_bin=$(readlink -f /bin/sh)
printf '#!/bin/sh\nexit 0\n' >"$T/good.sh"
printf '#!/bin/sh\n: >%s/EVIL_RAN\n' "$W" >"$T/evil.sh"
chmod +x "$T/good.sh" "$T/evil.sh"
cp "$T/good.sh" "$W/s.sh"
cat >"$T/loop.sh" <<EOF2
end=\$(( \$(date +%s) + \$1 ))
( while [ \$(date +%s) -lt \$end ]; do cp "$T/good.sh" "$W/.g"; mv -f "$W/.g" "$W/s.sh"; cp "$T/evil.sh" "$W/.e"; chmod +x "$W/.e"; mv -f "$W/.e" "$W/s.sh"; done ) &
while [ \$(date +%s) -lt \$end ]; do "$W/s.sh" 2>/dev/null; done
wait
EOF2
bare sh "$T/loop.sh" "$(race_bare_secs)"
[ -e "$W/EVIL_RAN" ] || esc_control_failed "bare: the swapped script never ran"
rm -f "$W/EVIL_RAN"; cp "$T/good.sh" "$W/s.sh"
# Approved: the shell, cp/mv/date/chmod and the script path. The evil
# script needs nothing else (a shell redirection in the workspace).
prof=$(esc_profile scriptonly '{"process_spawn": {"default": "deny", "allow": ["'"$sh_bin"'", "/usr/bin/cp", "/usr/bin/mv", "/usr/bin/date", "/usr/bin/chmod", "'"$W"'/s.sh"]}}' verify)
under "$prof" -- sh "$T/loop.sh" "$RACE"
[ -e "$W/EVIL_RAN" ] && esc_bypass "swapped script content ran under the approved script path $W/s.sh (the interpreter re-opens argv[1] by name): $(grep -c process_spawn "$TR") spawn records"
exit 0
