# peer_send.py PORT ADDR4 ADDR6: one datagram to PORT at each address,
# from another network namespace (the veth peer of esc_veth_peer): what a
# socket of the tree bound to every interface would receive (e183, e184,
# e186).
import socket, sys
port = int(sys.argv[1])
for fam, a in ((socket.AF_INET, sys.argv[2]), (socket.AF_INET6, sys.argv[3])):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.sendto(b"C2-FROM-PEER", (a, port))
