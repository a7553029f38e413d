/* Reading a file mapping that may shrink. Reading a page of a mapping past the file's end raises SIGBUS in
 * the reading thread. While a reader is guarded, this handler jumps back to where that thread entered
 * shrink_guarded, and the read fails as shrunk. A SIGBUS anywhere else goes to the handler that was there
 * before. */
#include "native.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>

/* volatile: a store the handler reads is never elided; initial-exec: reading it in the handler never
 * allocates (a module's thread-locals are otherwise allocated on a thread's first use). */
static _Thread_local sigjmp_buf *volatile bus_jump __attribute__((tls_model("initial-exec")));
static struct sigaction previous_bus;
static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
static int bus_users;

static void on_bus(int sig, siginfo_t *info, void *context) {
    (void)context;
    sigjmp_buf *jump = bus_jump;
    if (jump) {
        siglongjmp(*jump, 1);
    }
    sigaction(SIGBUS, &previous_bus, NULL); /* a fault runs again into it; a signal sent is sent again */
    if (info->si_code <= 0) {
        raise(sig);
    }
}

int shrink_guard_begin(void) {
    pthread_mutex_lock(&bus_lock);
    int ok = 1;
    if (bus_users == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_bus;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        ok = sigaction(SIGBUS, &action, &previous_bus) == 0;
    }
    bus_users += ok;
    pthread_mutex_unlock(&bus_lock);
    return ok;
}

void shrink_guard_end(void) {
    pthread_mutex_lock(&bus_lock);
    if (--bus_users == 0) {
        sigaction(SIGBUS, &previous_bus, NULL);
    }
    pthread_mutex_unlock(&bus_lock);
}

/* sigsetjmp saves the signal mask, so SIGBUS is unblocked again after the jump. work comes from another
 * file through a pointer and is never inlined here: a function that calls sigsetjmp is compiled with its
 * registers spilled. */
int shrink_guarded(void (*work)(void *), void *arg) {
    sigjmp_buf jump;
    int shrank = 0;
    if (sigsetjmp(jump, 1) == 0) {
        bus_jump = &jump;
        work(arg);
    } else {
        shrank = 1;
    }
    bus_jump = NULL;
    return shrank;
}
