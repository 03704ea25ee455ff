package gen
import ("testing";"math/rand";"errors";"strings";"fmt";"os";"github.com/tflm-gen/tflm-gen/internal/model")
func TestTmpEditStats(t *testing.T){
 seeds:=fuzzEditSeeds(); r:=rand.New(rand.NewSource(int64(len(os.Getenv("SEED"))+7)))
 stats:=map[string]int{}
 seen:=map[string]bool{}
 for it:=0; it<20000; it++ {
  k:=r.Intn(len(seeds)); sc:=fuzzScalars(seeds[k]); if len(sc)==0 {continue}
  data:=append([]byte(nil),seeds[k]...)
  n:=1+r.Intn(4)
  var recs []byte
  for j:=0;j<n;j++{ rec:=make([]byte,4); r.Read(rec); recs=append(recs,rec...); fuzzEdit(data,sc,rec) }
  func(){
  defer func(){ if e:=recover(); e!=nil { t.Logf("PANIC k=%d recs=%v: %v", k, recs, e) } }()
  _,err:=Generate("f.tflite",data,fuzzOptions)
  switch {
  case err==nil: stats["ok"]++
  case errors.Is(err,model.ErrInvalid): stats["invalid"]++
  case errors.Is(err,model.ErrUnsupported) && !strings.Contains(err.Error(),"internal error"): stats["unsup"]++
  default: stats["other"]++
    m:=err.Error(); i:=strings.Index(m,"internal error"); key:=m
    if i>=0 { key=m[i:min(len(m),i+60)] }
    if !seen[key] { seen[key]=true; t.Log(fmt.Sprintf("k=%d recs=%v: %s", k, recs, m[:min(len(m),600)])) }
  }
  }()
 }
 t.Log(stats)
}
