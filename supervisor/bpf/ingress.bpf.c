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
 *
 * Only the context's fields are read (struct __sk_buff, struct
 * bpf_sock: the verifier rewrites them), so the object needs no BTF of
 * the running kernel. */
#include <linux/bpf.h>
#include <linux/in.h>
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

/* [0]: datagrams dropped. [1]: the local port (host order) of the last
 * socket a datagram was dropped for. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("cgroup_skb/ingress")
int cw_ingress(struct __sk_buff *skb)
{
	if (skb->ifindex == LOOPBACK_IFINDEX)
		return 1;
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
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&counts, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	k = 1;
	v = bpf_map_lookup_elem(&counts, &k);
	if (v)
		*v = sk->src_port;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
