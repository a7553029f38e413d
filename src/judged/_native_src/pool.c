/* The one thread pool of judged._native: a job cut into shares, the shares spread over threads started for
 * the call, the GIL released meanwhile. A thread that cannot be started is the one fallback: the calling
 * thread runs its shares, so the answer never depends on how many threads ran. */
#include "native.h"

#include <pthread.h>

typedef struct {
    ShareWork work;
    void *context;
    int first, stride, shares;
} Worker;

static void *run_worker(void *arg) {
    Worker *worker = arg;
    for (int s = worker->first; s < worker->shares; s += worker->stride) {
        worker->work(worker->context, s);
    }
    return NULL;
}

int pool_threads(int requested) { return requested < 1 ? 1 : requested > MAX_THREADS ? MAX_THREADS : requested; }

void pool_run(int shares, int threads, ShareWork work, void *context) {
    threads = pool_threads(threads);
    if (threads > shares) {
        threads = shares;
    }
    if (threads < 1) {
        return;
    }
    Worker workers[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++) {
        workers[t] = (Worker){work, context, t, threads, shares};
    }
    for (int t = 1; t < threads; t++) {
        started[t] = pthread_create(&ids[t], NULL, run_worker, &workers[t]) == 0;
    }
    run_worker(&workers[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) {
            pthread_join(ids[t], NULL);
        } else {
            run_worker(&workers[t]);
        }
    }
    Py_END_ALLOW_THREADS
}
