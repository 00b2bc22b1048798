/*
 * k1s pause: the process that holds a pod sandbox's namespaces open.
 * It blocks in pause() forever, exits 0 on SIGINT or SIGTERM (so stopping a sandbox is quick), and, being PID 1 of a
 * pod that shares its PID namespace, reaps every orphaned child on SIGCHLD so no zombies pile up.
 * Build: gcc -static -O2 -s -o pause pause.c
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define VERSION "3.10"

static void on_stop(int sig) {
  (void)sig;
  _exit(0);
}

static void on_child(int sig) {
  (void)sig;
  int saved = errno;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  errno = saved;
}

static int install(int sig, void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = sig == SIGCHLD ? SA_NOCLDSTOP | SA_RESTART : 0;
  sigemptyset(&sa.sa_mask);
  return sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "-v") == 0) {
    printf("pause.c %s (k1s)\n", VERSION);
    return 0;
  }
  if (getpid() != 1) fprintf(stderr, "Warning: pause should be the first process\n");
  if (install(SIGINT, on_stop) < 0 || install(SIGTERM, on_stop) < 0 || install(SIGCHLD, on_child) < 0) {
    perror("sigaction");
    return 1;
  }
  for (;;) pause();
  return 42; /* not reached */
}
