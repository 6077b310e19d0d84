import ctypes, ctypes.util, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
AF_UNIX = socket.AF_UNIX
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
def addr(path, total):
    b = ctypes.create_string_buffer(total)
    ctypes.memset(b, 0, total)
    b[0:2] = AF_UNIX.to_bytes(2, sys.byteorder)
    b[2:2 + len(path)] = path
    return b
def res(r):
    return "ok" if r >= 0 else os.strerror(ctypes.get_errno())
def call(name, *a):
    ctypes.set_errno(0)
    return res(getattr(libc, name)(*a))
def sendmsg(fd, a, alen):
    data = ctypes.create_string_buffer(b"x")
    io = iovec(ctypes.cast(data, ctypes.c_void_p), 1)
    m = msghdr(ctypes.cast(a, ctypes.c_void_p), alen, ctypes.pointer(io), 1, None, 0, 0)
    ctypes.set_errno(0)
    return res(libc.sendmsg(fd, ctypes.byref(m), 0))
ws = os.getcwd().encode()
long126 = b"a" * 126  # fills 128 bytes, no NUL anywhere
for total in (111, 128):
    s = socket.socket(AF_UNIX, socket.SOCK_DGRAM)
    a = addr(long126[:total - 2], total)
    print(total, "connect", call("connect", s.fileno(), a, total))
    print(total, "sendto", call("sendto", s.fileno(), b"x", 1, 0, a, total))
    print(total, "sendmsg", sendmsg(s.fileno(), a, total))
    print(total, "bind", call("bind", s.fileno(), a, total))
    s.close()
# exactly 108 bytes of path, no NUL: legal, the kernel terminates it
p108 = ws + b"/" + b"s" * (108 - len(ws) - 1)
assert len(p108) == 108
srv = socket.socket(AF_UNIX, socket.SOCK_DGRAM)
a = addr(p108, 110)
print("108 bind", call("bind", srv.fileno(), a, 110))
c = socket.socket(AF_UNIX, socket.SOCK_DGRAM)
print("108 sendto", call("sendto", c.fileno(), b"hi", 2, 0, a, 110))
print("108 sendmsg", sendmsg(c.fileno(), a, 110))
print("108 connect", call("connect", c.fileno(), a, 110))
srv.settimeout(5)
got = [srv.recv(10), srv.recv(10)]
print("108 received", got)
