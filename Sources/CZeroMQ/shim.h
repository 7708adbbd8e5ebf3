#ifndef STROKE_WORKER_CZEROMQ_SHIM_H
#define STROKE_WORKER_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
