#!/bin/sh
# Red team of reads decided in the kernel (2026-12-02, session 6), found
# under every back end: a home's secret places (~/.aws, ~/.ssh, ~/.kube/
# config, ...) are names below $HOME, /root and /home/X, but each back end
# decides a read on the resolved path (the kernel's name for the file
# under CAPWATCH_KERNEL_READS=1, resolve.c's elsewhere). Reached through
# a symbolic link they are their targets, no secrets by name: (a) ~/.aws
# a link to a dotfiles repository (GNU stow, chezmoi, yadm do this),
# (b) ~/.kube/config a link to a file there, (c) ~/.ssh/config a link in a
# real ~/.ssh (home-manager), (d) $HOME itself reached through a link
# (HOME=/home/u with /home -> /var/home). Every read was allowed with no
# denial; each is a secret read (secret_ids.c cw_secret_ids_linked).
# Capability sought: filesystem_read of a secret under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
D=$T/dotfiles
tok="AWS-$esc_name-$$" kube="KUBE-$esc_name-$$" sshc="SSHCONF-$esc_name-$$"
mkdir -p "$D/aws" "$H/.kube" || fail "mkdir"
printf 'aws_secret_access_key=%s\n' "$tok" >"$D/aws/credentials"
printf 'token: %s\n' "$kube" >"$D/kubeconfig"
printf 'Host bastion # %s\n' "$sshc" >"$D/ssh_config"
echo "a public file" >"$D/README"
ln -s "$D/aws" "$H/.aws" && ln -s "$D/kubeconfig" "$H/.kube/config" &&
	ln -s "$D/ssh_config" "$H/.ssh/config" && ln -s "$H" "$T/homelink" || skip "no symbolic links in $T"

ATTACK='cat "$HOME/.aws/credentials"; cat "$HOME/.kube/config"; cat "$HOME/.ssh/config"; cat "'$D'/README"'
# Positive control: bare, the links read as the secrets.
HOME=$H bare sh -c "$ATTACK"
for s in "$tok" "$kube" "$sshc"; do
	grep -q "$s" "$O/bare.out" || esc_control_failed "bare read lacks $s: $(cat "$O/bare.out")"
done

check() { # WHAT HOME [OPTS...]
	_w=$1 _h=$2
	shift 2
	HOME=$_h under verify "$@" -- sh -c "$ATTACK"
	grep -q "$tok" "$OUT" && esc_bypass "$_w: (a) ~/.aws/credentials read through the link ~/.aws"
	grep -q "$kube" "$OUT" && esc_bypass "$_w: (b) ~/.kube/config read through its link"
	grep -q "$sshc" "$OUT" && esc_bypass "$_w: (c) ~/.ssh/config read through its link"
	grep -q "a public file" "$OUT" || fail "$_w: the dotfiles' README (no secret) was not read: $(cat "$OUT")"
	expect_denied filesystem_read "'$D/aws/credentials'"
	report_has "denials('filesystem_read', '$D/kubeconfig')" "denials('filesystem_read', '$D/ssh_config')" \
		'all(e["rule"] == "verify:filesystem_read_secret:default" for e in denials("filesystem_read"))' \
		'any("through a symbolic link" in e["reason"] for e in d["denials"])'
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}

(unset CAPWATCH_KERNEL_READS; check "default back end" "$H") || exit 1
check "(d) HOME through a link" "$T/homelink"
check "portable back end" "$H" --backend portable
if "$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1; then
	CAPWATCH_KERNEL_READS=1
	export CAPWATCH_KERNEL_READS
	check "reads decided in the kernel" "$H" --backend kernel
	check "reads in the kernel, (d)" "$T/homelink" --backend kernel
	unset CAPWATCH_KERNEL_READS
else
	esc_log "no kernel back end here: $(cat "$O/probe.out")"
fi
exit 0
