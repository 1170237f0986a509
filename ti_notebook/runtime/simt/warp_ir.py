"""LLVM IR of the emulator's warp operations: ``__syncwarp``, shuffles, votes.

Appended to ``sync_ir.SYNC_IR`` (it uses the state, barriers and errors defined there).
Shuffles and votes exchange values through per-warp slots, double-buffered by the
parity of a per-thread exchange counter, so one warp barrier per exchange is enough: a
lane cannot write slot set ``p`` again before every lane has passed the next barrier,
i.e. finished reading it. Each slot also holds the writer's tag (block serial, exchange
count), so a lane that reads a lane which exited, or is busy elsewhere, is reported
instead of getting a stale value. Only whole-warp masks are emulated.

    >>> "define i32 @tin_simt_shfl(" in WARP_IR
    True
"""

from __future__ import annotations

WARP_IR = r"""
; Lanes in the caller's warp (32 except in a last, partial warp).
define internal i32 @warp_lanes(ptr %st) {
  %n = load i32, ptr @nthreads, align 4
  %w = call i32 @field(ptr %st, i32 5)
  %first = shl i32 %w, 5
  %rest = sub i32 %n, %first
  %small = icmp ult i32 %rest, 32
  %lanes = select i1 %small, i32 %rest, i32 32
  ret i32 %lanes
}

; Only whole-warp masks are emulated: -1, or every lane of a partial last warp.
define internal ptr @warp_barrier(ptr %st, i32 %mask) {
entry:
  %lanes = call i32 @warp_lanes(ptr %st)
  %bit = shl i32 1, %lanes
  %partial = sub i32 %bit, 1
  %full = icmp eq i32 %mask, -1
  %whole = icmp eq i32 %mask, %partial
  %ok = or i1 %full, %whole
  br i1 %ok, label %fine, label %bad
bad:
  %lane = call i32 @field(ptr %st, i32 4)
  %w = call i32 @field(ptr %st, i32 5)
  call void @fail_here(ptr %st, i32 $ERROR_MASK, i32 %mask, i32 %lane, i32 %w)
  unreachable
fine:
  %w2 = call i32 @field(ptr %st, i32 5)
  %wb = getelementptr [32 x %Barrier], ptr @warp_bars, i64 0, i32 %w2
  ret ptr %wb
}

define void @tin_simt_syncwarp(i32 %mask) {
  %st = call ptr @self()
  %wb = call ptr @warp_barrier(ptr %st, i32 %mask)
  call void @arrive(ptr %wb, ptr %st, i32 3)
  ret void
}

; Publishes %val in this lane's slot and waits for the warp; returns the slot row.
define internal ptr @exchange(ptr %st, i32 %mask, i32 %val) {
  %wb = call ptr @warp_barrier(ptr %st, i32 %mask)
  %tagp = getelementptr %State, ptr %st, i32 0, i32 11
  %tag0 = load i64, ptr %tagp, align 8
  %tag = add i64 %tag0, 1
  store i64 %tag, ptr %tagp, align 8
  %p64 = and i64 %tag, 1
  %parity = trunc i64 %p64 to i32
  %w = call i32 @field(ptr %st, i32 5)
  %lane = call i32 @field(ptr %st, i32 4)
  %row = getelementptr [32 x [2 x [32 x %Slot]]], ptr @slots, i64 0, i32 %w, i32 %parity
  %slot = getelementptr [32 x %Slot], ptr %row, i64 0, i32 %lane
  store i64 %tag, ptr %slot, align 8
  %valp = getelementptr %Slot, ptr %slot, i32 0, i32 1
  store i32 %val, ptr %valp, align 4
  call void @arrive(ptr %wb, ptr %st, i32 2)
  ret ptr %row
}

; shfl.sync as PTX defines it; mode 0 up, 1 down, 2 bfly, 3 idx. *%pred (if not null)
; gets whether the source lane was in range.
define i32 @tin_simt_shfl(i32 %mode, i32 %mask, i32 %val, i32 %b, i32 %c, ptr %pred) {
entry:
  %st = call ptr @self()
  %row = call ptr @exchange(ptr %st, i32 %mask, i32 %val)
  %lane = call i32 @field(ptr %st, i32 4)
  %bval = and i32 %b, 31
  %cval = and i32 %c, 31
  %seg_hi = lshr i32 %c, 8
  %segmask = and i32 %seg_hi, 31
  %notseg = xor i32 %segmask, -1
  %lane_seg = and i32 %lane, %segmask
  %c_rest = and i32 %cval, %notseg
  %max_lane = or i32 %lane_seg, %c_rest
  %j_up = sub i32 %lane, %bval
  %p_up = icmp sge i32 %j_up, %max_lane
  %j_down = add i32 %lane, %bval
  %p_down = icmp sle i32 %j_down, %max_lane
  %j_bfly = xor i32 %lane, %bval
  %p_bfly = icmp sle i32 %j_bfly, %max_lane
  %b_rest = and i32 %bval, %notseg
  %j_idx = or i32 %lane_seg, %b_rest
  %p_idx = icmp sle i32 %j_idx, %max_lane
  %is_up = icmp eq i32 %mode, 0
  %is_down = icmp eq i32 %mode, 1
  %is_bfly = icmp eq i32 %mode, 2
  %j1 = select i1 %is_bfly, i32 %j_bfly, i32 %j_idx
  %p1 = select i1 %is_bfly, i1 %p_bfly, i1 %p_idx
  %j2 = select i1 %is_down, i32 %j_down, i32 %j1
  %p2 = select i1 %is_down, i1 %p_down, i1 %p1
  %j3 = select i1 %is_up, i32 %j_up, i32 %j2
  %in_range = select i1 %is_up, i1 %p_up, i1 %p2
  %src = select i1 %in_range, i32 %j3, i32 %lane
  %slot = getelementptr [32 x %Slot], ptr %row, i64 0, i32 %src
  %tagp = getelementptr %State, ptr %st, i32 0, i32 11
  %tag = load i64, ptr %tagp, align 8
  %seen = load i64, ptr %slot, align 8
  %present = icmp eq i64 %seen, %tag
  br i1 %present, label %read, label %absent
absent:
  %w = call i32 @field(ptr %st, i32 5)
  call void @fail_here(ptr %st, i32 $ERROR_ABSENT_LANE, i32 %lane, i32 %src, i32 %w)
  unreachable
read:
  %valp = getelementptr %Slot, ptr %slot, i32 0, i32 1
  %v = load i32, ptr %valp, align 4
  %want_pred = icmp ne ptr %pred, null
  br i1 %want_pred, label %store_pred, label %exit
store_pred:
  %p8 = zext i1 %in_range to i8
  store i8 %p8, ptr %pred, align 1
  br label %exit
exit:
  ret i32 %v
}

; vote.sync: op 0 all, 1 any, 2 uni, 3 ballot, over the lanes that took part.
define i32 @tin_simt_vote(i32 %op, i32 %mask, i32 %pred) {
entry:
  %st = call ptr @self()
  %nonzero = icmp ne i32 %pred, 0
  %bit = zext i1 %nonzero to i32
  %row = call ptr @exchange(ptr %st, i32 %mask, i32 %bit)
  %tagp = getelementptr %State, ptr %st, i32 0, i32 11
  %tag = load i64, ptr %tagp, align 8
  br label %scan
scan:
  %l = phi i32 [ 0, %entry ], [ %l1, %scan ]
  %part = phi i32 [ 0, %entry ], [ %part1, %scan ]
  %ballot = phi i32 [ 0, %entry ], [ %ballot1, %scan ]
  %slot = getelementptr [32 x %Slot], ptr %row, i64 0, i32 %l
  %seen = load i64, ptr %slot, align 8
  %valp = getelementptr %Slot, ptr %slot, i32 0, i32 1
  %v = load i32, ptr %valp, align 4
  %present = icmp eq i64 %seen, %tag
  %lanebit = shl i32 1, %l
  %pbit = select i1 %present, i32 %lanebit, i32 0
  %part1 = or i32 %part, %pbit
  %yes = icmp ne i32 %v, 0
  %vote = and i1 %present, %yes
  %vbit = select i1 %vote, i32 %lanebit, i32 0
  %ballot1 = or i32 %ballot, %vbit
  %l1 = add i32 %l, 1
  %more = icmp ult i32 %l1, 32
  br i1 %more, label %scan, label %done
done:
  %all = icmp eq i32 %ballot1, %part1
  %any = icmp ne i32 %ballot1, 0
  %none = icmp eq i32 %ballot1, 0
  %uni = or i1 %all, %none
  %all32 = zext i1 %all to i32
  %any32 = zext i1 %any to i32
  %uni32 = zext i1 %uni to i32
  %is_all = icmp eq i32 %op, 0
  %is_any = icmp eq i32 %op, 1
  %is_uni = icmp eq i32 %op, 2
  %r1 = select i1 %is_uni, i32 %uni32, i32 %ballot1
  %r2 = select i1 %is_any, i32 %any32, i32 %r1
  %r = select i1 %is_all, i32 %all32, i32 %r2
  ret i32 %r
}

; The lanes of the caller's warp that have not exited (which lanes are converged is
; not known to the emulator).
define i32 @tin_simt_activemask() {
entry:
  %st = call ptr @self()
  %lanes = call i32 @warp_lanes(ptr %st)
  %w = call i32 @field(ptr %st, i32 5)
  %first = shl i32 %w, 5
  br label %scan
scan:
  %l = phi i32 [ 0, %entry ], [ %l1, %scan ]
  %mask = phi i32 [ 0, %entry ], [ %mask1, %scan ]
  %i = add i32 %first, %l
  %other = getelementptr [1024 x %State], ptr @states, i64 0, i32 %i
  %ex = getelementptr %State, ptr %other, i32 0, i32 10
  %gone = load atomic i32, ptr %ex acquire, align 4
  %here = icmp eq i32 %gone, 0
  %bit = shl i32 1, %l
  %add = select i1 %here, i32 %bit, i32 0
  %mask1 = or i32 %mask, %add
  %l1 = add i32 %l, 1
  %more = icmp ult i32 %l1, %lanes
  br i1 %more, label %scan, label %done
done:
  ret i32 %mask1
}
"""
