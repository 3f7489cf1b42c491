// fdatasync cost: appending to a growing file vs overwriting a pre-written one.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static double cpu(){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_utime.tv_sec+r.ru_utime.tv_usec/1e6+r.ru_stime.tv_sec+r.ru_stime.tv_usec/1e6;}
static double machine(){FILE*f=fopen("/proc/stat","r");unsigned long long u,n,s,i,w,q,sq,st;fscanf(f,"cpu %llu %llu %llu %llu %llu %llu %llu %llu",&u,&n,&s,&i,&w,&q,&sq,&st);fclose(f);return (u+n+s+q+sq+st)/(double)sysconf(_SC_CLK_TCK);}
int main(int argc,char**argv){
  const char*mode=argv[1]; int n=atoi(argv[2]); int size=atoi(argv[3]);
  const char*path="/tmp/fsb/data";
  char*buf=aligned_alloc(4096,size); memset(buf,'x',size);
  unlink(path);
  int fd=open(path,O_CREAT|O_RDWR,0644);
  if(!strcmp(mode,"overwrite")){ for(int i=0;i<n;i++) write(fd,buf,size); fsync(fd); lseek(fd,0,SEEK_SET);} 
  if(!strcmp(mode,"fallocate")){ fallocate(fd,0,0,(off_t)n*size); fsync(fd);} 
  sleep(1);
  double t0=now(),c0=cpu(),m0=machine();
  for(int i=0;i<n;i++){ if(write(fd,buf,size)!=size){perror("write");return 1;} fdatasync(fd);} 
  double t1=now(),c1=cpu(),m1=machine();
  printf("%-10s n=%d size=%d: %.1f us/fdatasync wall, %.1f us CPU in-process, %.1f us CPU machine-wide\n",mode,n,size,(t1-t0)/n*1e6,(c1-c0)/n*1e6,(m1-m0)/n*1e6);
  close(fd); unlink(path); return 0;
}
