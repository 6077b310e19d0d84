// SPDX-License-Identifier: GPL-2.0-only
/* The kernel back end's ingress guard (SECURITY.md, e186), attached as a
 * BPF_CGROUP_INET_INGRESS program to the run's cgroup: it sees every
 * packet delivered to a socket the tree created.
 *
 * A datagram socket the tree never bound is autobound by the kernel to
 * the wildcard address at a send capwatch never sees (write(), or send()
 * with no name, on an unconnected socket: inet_send_prepare ->
 * inet_autobind), and from then on it receives from every interface: a
 * host-visible port no decided bind opened. This program drops what
 * arrives off the loopback device for a datagram socket that is
 * unconnected and bound to the wildcard, unless capwatch marked the
 * socket (an allowed host-visible bind, or an allowed exchange with an
 * external address, whose replies come back that way). Everything else
 * passes: connected sockets (the kernel gives them their peer's
 * datagrams only), sockets bound to an address (that bind was decided),
 * stream sockets (their listen and connect are decided), and anything
 * arriving on lo (reachable from this host only, as a loopback bind is).
 * What arrives off lo addressed to a loopback address (127.0.0.0/8, ::1,
 * ::ffff:127.0.0.0/104) is dropped for every socket: the kernel takes
 * such a packet from another host only where route_localnet is on (as
 * kube-proxy sets it), and a socket bound to loopback (isolated_loopback)
 * must not hear the network then either (red team 27, C1).
 *
 * Only the context's fields are read (struct __sk_buff, struct
 * bpf_sock: the verifier rewrites them), so the object needs no BTF of
 * the running kernel. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define LOOPBACK_IFINDEX 1 /* the kernel's lo, in every network namespace */
#define AF_INET 2
#define AF_INET6 10
#define SOCK_DGRAM 2

/* The sockets capwatch allowed to receive from the network. The key is
 * the socket (capwatch updates it through its duplicate's descriptor). */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} marked SEC(".maps");

/* [0]: packets dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count_drop(void)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&counts, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Is the packet (its network header at offset 0) addressed to loopback? */
static __always_inline int to_loopback(struct __sk_buff *skb)
{
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		__u8 d0 = 0;
		return bpf_skb_load_bytes(skb, 16, &d0, 1) == 0 && d0 == 127;
	}
	if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		__u32 d[4] = { 0, 0, 0, 0 };
		if (bpf_skb_load_bytes(skb, 24, d, sizeof(d)) != 0 || d[0] != 0 || d[1] != 0)
			return 0;
		if (d[2] == 0 && d[3] == bpf_htonl(1))
			return 1;
		return d[2] == bpf_htonl(0x0000ffff) && (d[3] & bpf_htonl(0xff000000)) == bpf_htonl(0x7f000000);
	}
	return 0;
}

SEC("cgroup_skb/ingress")
int cw_ingress(struct __sk_buff *skb)
{
	if (skb->ifindex == LOOPBACK_IFINDEX)
		return 1;
	if (to_loopback(skb)) {
		count_drop();
		return 0;
	}
	struct bpf_sock *sk = skb->sk;
	if (!sk)
		return 1;
	sk = bpf_sk_fullsock(sk);
	if (!sk)
		return 1;
	__u32 family = sk->family;
	if (sk->type != SOCK_DGRAM || (family != AF_INET && family != AF_INET6))
		return 1;
	if (sk->state == BPF_TCP_ESTABLISHED) /* a connected datagram socket */
		return 1;
	/* Bound to an address: that bind was decided. The wildcard is
	 * 0.0.0.0, [::] or [::ffff:0.0.0.0]. (Each field is read on its
	 * own: the verifier refuses arithmetic on the socket's pointer.) */
	if (family == AF_INET) {
		__u32 a4 = sk->src_ip4;
		if (a4 != 0)
			return 1;
	} else {
		__u32 a0 = sk->src_ip6[0];
		__u32 a1 = sk->src_ip6[1];
		__u32 a2 = sk->src_ip6[2];
		__u32 a3 = sk->src_ip6[3];
		if (a0 != 0 || a1 != 0 || a3 != 0 || (a2 != 0 && a2 != __builtin_bswap32(0x0000ffff)))
			return 1;
	}
	if (bpf_sk_storage_get(&marked, sk, 0, 0))
		return 1;
	count_drop();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
