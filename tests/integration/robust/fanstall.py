# Stall capwatch through a fanotify permission event the command holds:
# mark a file for FAN_OPEN_PERM, never read the group, then open the file.
# capwatch performs the open itself and waits for an answer that never
# comes; only killing the command (the group's holder) releases it.
# Exit 77 when fanotify is not available (no CAP_SYS_ADMIN, or refused).
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
FAN_CLASS_CONTENT = 0x4
FAN_MARK_ADD = 0x1
FAN_OPEN_PERM = 0x10000
libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]
open("victim", "w").close()
fd = libc.fanotify_init(FAN_CLASS_CONTENT, os.O_RDONLY)
if fd < 0:
    print("fanotify_init: " + os.strerror(ctypes.get_errno()), file=sys.stderr)
    sys.exit(77)
if libc.fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, -100, b"victim") < 0:
    print("fanotify_mark: " + os.strerror(ctypes.get_errno()), file=sys.stderr)
    sys.exit(77)
open("armed", "w").close()
open("victim").close()   # the event is never answered
print("the open returned", file=sys.stderr)
