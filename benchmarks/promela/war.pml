/* War, the children's card game, with N distinct cards (N = 6, 8 or 10): every deal, played to
   the end. The same game as benchmarks/models/war/warN.yaml, for the side-by-side benchmark
   (benchmarks/explicit.py --spin):

       spin -a -DN=8 war.pml && gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -m100000

   Each deal and each battle is one d_step, so every state SPIN stores is a state of the
   rulecheck model (plus the process's program counter, which never changes between steps).
   The cards are dealt one at a time, alternately, in every order; each battle compares the two
   top cards, and the higher card's owner puts their own card and then the other one at the
   bottom of their pile. A player with an empty pile has lost (the process then blocks at `end`). */

#ifndef N
#define N 10
#endif
#define DEALING 0
#define PLAYING 1

byte pile[2 * N];      /* player p's pile is pile[p * N .. p * N + N - 1], top first, 0 = empty */
byte size[2];
bool dealt[N + 1];
bit turn;
bit phase;
hidden byte i, w, l, wc, lc;

inline deal(c) {
  pile[turn * N + size[turn]] = c;
  size[turn]++;
  dealt[c] = 1;
  turn = 1 - turn;
  if
  :: size[0] + size[1] == N -> phase = PLAYING
  :: else -> skip
  fi
}

inline battle() {
  if
  :: pile[0] > pile[N] -> w = 0
  :: else -> w = 1
  fi;
  l = 1 - w;
  wc = pile[w * N];
  lc = pile[l * N];
  i = 0;
  do
  :: i < N - 1 ->
     pile[w * N + i] = pile[w * N + i + 1];
     pile[l * N + i] = pile[l * N + i + 1];
     i++
  :: else -> break
  od;
  pile[w * N + N - 1] = 0;
  pile[l * N + N - 1] = 0;
  pile[w * N + size[w] - 1] = wc;
  pile[w * N + size[w]] = lc;
  size[w]++;
  size[l]--
}

active proctype war() {
end:
  do
  :: d_step { phase == DEALING && !dealt[1] -> deal(1) }
  :: d_step { phase == DEALING && !dealt[2] -> deal(2) }
  :: d_step { phase == DEALING && !dealt[3] -> deal(3) }
  :: d_step { phase == DEALING && !dealt[4] -> deal(4) }
  :: d_step { phase == DEALING && !dealt[5] -> deal(5) }
  :: d_step { phase == DEALING && !dealt[6] -> deal(6) }
#if N >= 7
  :: d_step { phase == DEALING && !dealt[7] -> deal(7) }
#endif
#if N >= 8
  :: d_step { phase == DEALING && !dealt[8] -> deal(8) }
#endif
#if N >= 9
  :: d_step { phase == DEALING && !dealt[9] -> deal(9) }
#endif
#if N >= 10
  :: d_step { phase == DEALING && !dealt[10] -> deal(10) }
#endif
  :: d_step { phase == PLAYING && size[0] > 0 && size[1] > 0 -> battle() }
  od
}
