# abstract_send.py OUT SENT STOP: a process outside the tree that sends to
# the abstract unix name the tree's program printed ("NAME <hex>") in its
# output OUT, three times, and then creates SENT. It gives up when OUT
# says STOP (the program got no name) or after 10 s (e185, e187).
import socket, sys, time
out, sent, stop = sys.argv[1], sys.argv[2], sys.argv[3]
name = None
for _ in range(200):
    try:
        text = open(out).read()
    except OSError:
        text = ""
    if stop in text:
        break
    for l in text.splitlines():
        if l.startswith("NAME "):
            name = bytes.fromhex(l[5:].strip())
    if name is not None:
        break
    time.sleep(0.05)
if name is not None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    for _ in range(3):
        try:
            s.sendto(b"C2-FROM-OUTSIDE", name)
        except OSError:
            pass  # the receiver is gone, or a stream socket
        time.sleep(0.1)
open(sent, "w").close()
