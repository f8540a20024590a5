VG_CORE_SRCS := window.c split.c token.c pacer.c heap.c qheap.c sched.c ctrl.c select.c sqstate.c qpbounds.c verbpace.c quota.c
